/** operators/connection.ts: the probes derived from openapi.json, and their verdicts on the answers' bytes. */
import { describe, expect, it } from 'vitest';
import { openapi } from '../../contract/openapi.ts';
import { wireAnswers } from '../../contract/standards/wire-answers.ts';
import { closeProblem, connectionProbes, http10Problem } from '../../operators/connection.ts';
import type { Document } from '../../operators/document.ts';

const doc = openapi as unknown as Document;
const answers = (text: string) => wireAnswers(Buffer.from(text, 'latin1'), 'GET', true);
const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}';

describe('connection probes', () => {
  it('apply the version rule to every GET operation without path parameters, the server-wide ones once', () => {
    const probes = connectionProbes(doc);
    const gets = Object.entries(doc.paths).filter(([path, item]) => 'get' in item && !path.includes('{'));
    expect(probes.filter((p) => p.id === 'WIRE-HTTP10')).toHaveLength(gets.length);
    for (const id of ['WIRE-HOST-TWICE', 'WIRE-HOST-INVALID', 'WIRE-HOST-MISSING', 'WIRE-ABSOLUTE-FORM', 'WIRE-CLOSE'])
      expect(
        probes.filter((p) => p.id === id),
        id,
      ).toHaveLength(1);
  });

  it('a copy of openapi.json with another GET operation gets its own version probe', () => {
    const copy = structuredClone(doc) as Document & { paths: Record<string, unknown> };
    copy.paths['/numbers'] = structuredClone(copy.paths['/agents'])!;
    const before = connectionProbes(doc).filter((p) => p.id === 'WIRE-HTTP10').length;
    expect(connectionProbes(copy).filter((p) => p.id === 'WIRE-HTTP10')).toHaveLength(before + 1);
  });

  it('a host probe passes on 400 only', () => {
    const twice = connectionProbes(doc).find((p) => p.id === 'WIRE-HOST-TWICE')!;
    expect(twice.judge(answers('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n'))).toBeUndefined();
    expect(twice.judge(answers(OK))).toMatch(/answered 200, not 400/);
  });

  it('an answer to HTTP/1.0 has no interim answer and no Transfer-Encoding', () => {
    expect(http10Problem(answers(OK))).toBeUndefined();
    expect(http10Problem(answers(`HTTP/1.1 100 Continue\r\n\r\n${OK}`))).toMatch(/interim 100/);
    const chunked = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n';
    expect(http10Problem(answers(chunked))).toMatch(/Transfer-Encoding: chunked/);
  });

  it('a second answer on a connection asked to close is the failure', () => {
    expect(closeProblem(answers(OK))).toBeUndefined();
    expect(closeProblem(answers(`${OK}HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n`))).toMatch(/stayed open/);
  });
});
