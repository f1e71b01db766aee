/**
 * evidence.zip: the manifest covers every report, names no configured value, and verification
 * finds a changed, missing or extra file.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { configurationFingerprint, sha256, verifyEvidence, writeEvidence } from '../../../harness/report/evidence.ts';
import { writeReports } from '../../../harness/report/files.ts';
import { buildReport } from '../../../harness/report/model.ts';
import { documentedVariables } from '../../../harness/config/documented.ts';

function makeRun() {
  const root = mkdtempSync(join(tmpdir(), 'occ-evidence-'));
  const report = buildReport({
    tool: 't',
    suiteVersion: '9.9.9',
    target: { kind: 'remote', baseUrl: 'https://staging.example.com/v1' },
    startedAt: '2026-11-22T10:00:00.000Z',
    durationMs: 1,
    seed: 7,
    dryRun: false,
    checks: [],
    load: [],
    previous: [],
    requestsSent: 0,
    unhandledErrors: [],
    interrupted: false,
  });
  const { dir } = writeReports(report, root);
  const configuration = configurationFingerprint(
    documentedVariables('#API_BASE_URL=https://x/v1\nTOKEN_ALL=\n#TOKEN_NONE=\n'),
    { API_BASE_URL: 'https://staging.example.com/v1', TOKEN_ALL: 'oc_live_SECRETVALUE', TOKEN_NONE: '' },
  );
  const { path, manifest } = writeEvidence({
    runDir: dir,
    report,
    exitCode: 0,
    suite: { name: 'occ', version: '9.9.9', gitCommit: null },
    openapi: strToU8('{"openapi":"3.1.0"}'),
    configuration,
  });
  return { path, manifest, zip: new Uint8Array(readFileSync(path)) };
}

describe('evidence.zip', () => {
  it("lists each report's SHA-256, the contract hashes, origin, variables set (names only) and waiver mode", () => {
    const { manifest, zip } = makeRun();
    expect(manifest.files.map((f) => f.name).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'report.md']);
    const files = unzipSync(zip);
    for (const f of manifest.files) expect(sha256(files[f.name]!)).toBe(f.sha256);
    expect(manifest.contract.openapiSha256).toBe(sha256('{"openapi":"3.1.0"}'));
    expect(manifest.contract.catalogueSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.target).toEqual({ kind: 'remote', origin: 'https://staging.example.com' });
    expect(manifest.configuration.set).toEqual(['API_BASE_URL', 'TOKEN_ALL']);
    expect(manifest.waivers.mode).toBe('none');
    expect(new TextDecoder().decode(files['manifest.json'])).not.toContain('SECRETVALUE');
    expect(verifyEvidence(zip)).toMatchObject({ ok: true, problems: [] });
  });

  it('says which file was changed, removed or added', () => {
    const { zip } = makeRun();
    const files = unzipSync(zip);
    files['report.md'] = strToU8('# PASSED (edited)\n');
    delete files['junit.xml'];
    files['extra.txt'] = strToU8('x');
    const result = verifyEvidence(zipSync(files));
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^report\.md: SHA-256 [0-9a-f]{64} differs from the manifest's/),
        'junit.xml: listed in the manifest but missing from the archive',
        'extra.txt: in the archive but not in the manifest',
      ]),
    );
  });

  it('refuses an archive that is no zip or has no manifest', () => {
    expect(verifyEvidence(strToU8('not a zip')).problems[0]).toMatch(/^not a zip archive/);
    const { zip } = makeRun();
    const files = unzipSync(zip);
    delete files['manifest.json'];
    expect(verifyEvidence(zipSync(files)).problems).toEqual(['no manifest.json in the archive']);
  });
});
