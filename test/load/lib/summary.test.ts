/**
 * The k6 probes' handleSummary (load/lib/summary.ts) redacts what the probe observed of the
 * target as values before serialising it, and leaves the target's words alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildSummary } from '../../../load/lib/summary.ts';

// k6's global, declared for this Node program (load/tsconfig.json has k6's own types).
declare global {
  // eslint-disable-next-line no-var
  var __ENV: Record<string, string | undefined>;
}
const g = globalThis as { __ENV?: Record<string, string> };

describe('k6 probe summaries', () => {
  afterEach(() => {
    delete g.__ENV;
  });

  it("carry no token, hook secret or credential field, and keep the target's text", () => {
    const token = 'oc_live_k6probe_0123456789';
    g.__ENV = { TOKEN: token, REPORT_DIR: '/tmp/occ-k6-summary' };
    const files = buildSummary('webhook-retry', { metrics: {}, state: { testRunDurationMs: 1000 } }, [], {
      observations: {
        hook: { id: 'h1', secret: 'whsec_c2VjcmV0c2VjcmV0', target: 'https://x.example/hook' },
        refusal: `401 {"error":"unauthorized"} WWW-Authenticate: Basic realm="oauth" for Bearer ${token}`,
      },
      chart: {},
      lines: [`echoed ${token}`, 'HTTP Basic is not a bearer token'],
    });
    const json = files['/tmp/occ-k6-summary/k6-webhook-retry.json']!;
    const parsed = JSON.parse(json) as { observations: { hook: Record<string, string>; refusal: string } };
    expect(json).not.toContain(token);
    expect(json).not.toContain('whsec_c2Vj');
    expect(parsed.observations.hook).toEqual({ id: 'h1', secret: '[REDACTED]', target: 'https://x.example/hook' });
    expect(parsed.observations.refusal).toBe(
      '401 {"error":"unauthorized"} WWW-Authenticate: Basic realm="oauth" for Bearer [REDACTED]',
    );
    expect(files.stdout).not.toContain(token);
    expect(files.stdout).toContain('HTTP Basic is not a bearer token');
  });
});
