/**
 * cli/remote-reference.ts's pure parts that a caller composes: routing a stand-in's seams through
 * origins that stand between (bench/network-faults.ts puts Toxiproxy there).
 */
import { describe, expect, it } from 'vitest';
import { throughRoutes } from '../../cli/remote-reference.ts';

const env = {
  API_BASE_URL: 'http://127.0.0.1:4000/v1',
  AUTH_URL: 'http://127.0.0.1:4000',
  CONTROL_URL: 'http://127.0.0.1:4000/_control',
  WEBHOOK_PUBLIC_URL: 'https://127.0.0.1:8443',
  RECEIVER_PORT: '8443',
  TOKEN_ALL: 'secret',
};

describe('throughRoutes', () => {
  it("moves each routed seam to its route's origin and keeps its path", () => {
    const routes = {
      api: 'http://127.0.0.1:5001',
      auth: 'http://127.0.0.1:5001',
      control: 'http://127.0.0.1:5002/',
      webhook: 'https://127.0.0.1:5003',
    };
    expect(throughRoutes(env, routes)).toEqual({
      ...env,
      API_BASE_URL: 'http://127.0.0.1:5001/v1',
      AUTH_URL: 'http://127.0.0.1:5001',
      CONTROL_URL: 'http://127.0.0.1:5002/_control',
      WEBHOOK_PUBLIC_URL: 'https://127.0.0.1:5003',
    });
  });

  it('leaves an unrouted seam, and a variable the environment lacks, as they are', () => {
    const { CONTROL_URL: _, ...withoutControl } = env;
    expect(
      throughRoutes(withoutControl, { control: 'http://127.0.0.1:5002', webhook: 'https://127.0.0.1:5003' }),
    ).toEqual({ ...withoutControl, WEBHOOK_PUBLIC_URL: 'https://127.0.0.1:5003' });
  });
});
