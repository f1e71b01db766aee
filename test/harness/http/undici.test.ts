/**
 * The parts of undici loaded from their own files (harness/http/undici.ts) are the package's own,
 * and its `request` asks the dispatcher given for the URL as undici's does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, buildConnector, errors, request } from '../../../harness/http/undici.ts';

describe('harness/http/undici.ts', () => {
  it("exports undici's own Agent, errors and connector", () => {
    expect(Agent).toBe(undici.Agent);
    expect(errors).toBe(undici.errors);
    expect(buildConnector).toBe(undici.buildConnector);
  });

  it('sends a request with its method, path, query, headers and body through the dispatcher given', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${req.headers['x-probe']} ${body}`);
        res.end('answer');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = new Agent();
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/hooks?x=1`;
      const answer = await request(url, { method: 'POST', dispatcher: agent, headers: { 'x-probe': 'p' }, body: 'b' });
      expect(answer.statusCode).toBe(200);
      expect(await answer.body.text()).toBe('answer');
      const plain = await request(url);
      await plain.body.dump();
      expect(seen).toEqual(['POST /v1/hooks?x=1 p b', 'GET /v1/hooks?x=1 undefined ']);
    } finally {
      await agent.close();
      server.close();
    }
  });
});
