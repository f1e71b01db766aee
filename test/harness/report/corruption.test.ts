/**
 * The corruption a vendor met: a failing exchange carrying
 * `WWW-Authenticate: Basic realm="oauth"` (RFC 6749 §5.2 for 401 invalid_client) and an
 * observation that mentions "HTTP Basic" made report.json invalid JSON and junit.xml ill-formed,
 * and redaction rewrote check names. Every file must parse and keep the text verbatim.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReports } from '../../../harness/report/files.ts';
import { buildReport } from '../../../harness/report/model.ts';
import { checkResult } from './fixtures.ts';
import { markdownTableProblems, parseXml } from './parse-back.ts';

const basicName = 'GET /me answers 401 unauthorized to a Basic scheme carrying a valid token, and to a bare "Bearer"';
const bearerName = 'GET /me answers 401 unauthorized to a bearer token it never issued';
const observation =
  'the token endpoint accepts HTTP Basic client authentication (client_secret_basic) ' +
  'and answers "Basic realm=\\"oauth\\""';
const failure = 'POST /oauth/token: expected 200, got 401 invalid_client\nWWW-Authenticate: Basic realm="oauth"';

const report = buildReport({
  tool: 't',
  suiteVersion: '1',
  target: { kind: 'remote', baseUrl: 'https://api.example.com/v1' },
  startedAt: '2026-11-22T10:00:00.000Z',
  durationMs: 10,
  seed: 7,
  dryRun: false,
  load: [],
  previous: [],
  requestsSent: 3,
  unhandledErrors: [],
  interrupted: false,
  checks: [
    checkResult({
      name: basicName,
      status: 'failed',
      requirements: ['AUTH-MALFORMED-SCHEME'],
      failure,
      exchanges: [
        {
          method: 'POST',
          url: 'https://auth.example.com/oauth/token',
          requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
          requestBody: 'grant_type=client_credentials',
          status: 401,
          responseHeaders: { 'www-authenticate': 'Basic realm="oauth"', 'content-type': 'application/json' },
          rawBody: '{"error":"invalid_client","error_description":"Client authentication failed: use HTTP Basic"}',
          durationMs: 2,
        },
      ],
    }),
    checkResult({
      name: bearerName,
      status: 'passed',
      requirements: ['AUTH-UNKNOWN-TOKEN'],
      observations: [{ requirement: 'AUTH-UNKNOWN-TOKEN', text: observation }],
    }),
  ],
});

describe('reports of a run whose target sends WWW-Authenticate: Basic realm="oauth"', () => {
  const root = mkdtempSync(join(tmpdir(), 'occ-corrupt-'));
  const { latest } = writeReports(report, root);
  const file = (name: string) => readFileSync(join(latest, name), 'utf8');

  it('report.json parses and carries the header, names, observation and target text verbatim', () => {
    const parsed = JSON.parse(file('report.json')) as typeof report;
    expect(parsed.checks.map((c) => c.name)).toEqual([basicName, bearerName]);
    expect(parsed.checks[0]!.failure).toBe(failure);
    expect(parsed.checks[1]!.observations[0]!.text).toBe(observation);
    expect(JSON.stringify(parsed.checks[0]!.exchanges)).toContain('Client authentication failed: use HTTP Basic');
    expect((parsed.checks[0]!.exchanges[0]!.responseHeaders as Record<string, string>)['www-authenticate']).toBe(
      'Basic realm="oauth"',
    );
  });

  it('junit.xml is well-formed and names the checks verbatim', () => {
    const xml = parseXml(file('junit.xml'));
    expect(xml.attributes).toContain(basicName);
    expect(xml.attributes).toContain(bearerName);
    expect(xml.text).toContain(observation);
    expect(xml.attributes).toContain(failure);
    expect(xml.text).toContain('"www-authenticate": "Basic realm=\\"oauth\\""');
  });

  it('report.md and report.html keep the names and the observation', () => {
    const md = file('report.md');
    expect(md).toContain(basicName);
    expect(md).toContain('HTTP Basic client authentication');
    expect(markdownTableProblems(md)).toEqual([]);
    const page = file('report.html');
    expect(page).toContain('a Basic scheme carrying a valid token');
    expect(page).toContain('HTTP Basic client authentication');
  });
});
