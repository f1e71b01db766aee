/**
 * evidence.zip (`occ run --evidence`): what a vendor hands a buyer. The four reports and a
 * manifest.json holding the SHA-256 of each, the suite's version and git commit (when it runs from
 * a clone), the SHA-256 of openapi.json and of the requirement catalogue it judged by, the target's
 * origin, the configuration fingerprint (which documented variables were set, never a value) and
 * the waiver mode. `occ verify evidence.zip` recomputes every hash and says what differs.
 *
 * Not signed: a manifest proves the files belong together and were not edited since, not who
 * made them. Signing waits for a party to hold the key (docs/decisions.md).
 * Zip through fflate (maintained, no dependencies, synchronous zip and unzip).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, strFromU8, unzipSync, zipSync } from 'fflate';
import { requirements } from '../../requirements/catalogue.ts';
import { REPORT_FILES } from './files.ts';
import type { RunReport } from './model.ts';

export const MANIFEST = 'manifest.json';
export const MANIFEST_FORMAT = 'occ-evidence/1';

export interface EvidenceManifest {
  readonly format: typeof MANIFEST_FORMAT;
  readonly createdAt: string;
  readonly suite: { readonly name: string; readonly version: string; readonly gitCommit: string | null };
  readonly contract: {
    readonly openapiSha256: string;
    readonly catalogueSha256: string;
    readonly requirements: number;
  };
  readonly target: { readonly kind: RunReport['target']['kind']; readonly origin: string };
  readonly run: { readonly startedAt: string; readonly seed: number; readonly exitCode: number };
  /** Which documented variables were set (names only) and a hash of that list. */
  readonly configuration: { readonly set: readonly string[]; readonly fingerprint: string };
  readonly waivers: { readonly mode: RunReport['waivers']['mode']; readonly entries: number };
  readonly files: ReadonlyArray<{ readonly name: string; readonly sha256: string; readonly bytes: number }>;
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The catalogue as data (id, section, level, text, checks), so a clone's .ts and the package's .js hash alike. */
export function catalogueSha256(): string {
  return sha256(JSON.stringify(requirements));
}

/** Names of the documented variables that are set (non-empty), and a SHA-256 of that list. Never values. */
export function configurationFingerprint(
  documented: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): EvidenceManifest['configuration'] {
  const set = documented.filter((name) => (env[name] ?? '').trim() !== '');
  return { set, fingerprint: sha256(set.join('\n')) };
}

/** The commit of a clone, or null (an installed package, or git missing). */
export function gitCommit(dir: string): string | null {
  if (!existsSync(join(dir, '.git'))) return null;
  const result = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8', timeout: 5_000 });
  const commit = result.stdout?.trim() ?? '';
  return result.status === 0 && /^[0-9a-f]{40}$/.test(commit) ? commit : null;
}

function origin(report: RunReport): string {
  if (report.target.kind === 'embedded') return 'embedded reference server';
  try {
    return new URL(report.target.baseUrl).origin;
  } catch {
    return report.target.baseUrl;
  }
}

/**
 * Zips the run's reports from `runDir` with their manifest into `runDir/evidence.zip`. Pure but
 * for reading those files and writing the zip.
 */
export function writeEvidence(input: {
  readonly runDir: string;
  readonly report: RunReport;
  readonly exitCode: number;
  readonly suite: { readonly name: string; readonly version: string; readonly gitCommit: string | null };
  readonly openapi: Uint8Array;
  readonly configuration: EvidenceManifest['configuration'];
  readonly now?: Date;
}): { path: string; manifest: EvidenceManifest } {
  const files: Record<string, Uint8Array> = {};
  for (const name of REPORT_FILES) files[name] = readFileSync(join(input.runDir, name));
  const manifest: EvidenceManifest = {
    format: MANIFEST_FORMAT,
    createdAt: (input.now ?? new Date()).toISOString(),
    suite: input.suite,
    contract: {
      openapiSha256: sha256(input.openapi),
      catalogueSha256: catalogueSha256(),
      requirements: requirements.length,
    },
    target: { kind: input.report.target.kind, origin: origin(input.report) },
    run: { startedAt: input.report.startedAt, seed: input.report.seed, exitCode: input.exitCode },
    configuration: input.configuration,
    waivers: { mode: input.report.waivers.mode, entries: input.report.waivers.entries },
    files: Object.entries(files).map(([name, data]) => ({ name, sha256: sha256(data), bytes: data.length })),
  };
  // A fixed modification time: the same run always makes the same archive.
  const mtime = new Date(input.report.startedAt);
  const entries = Object.fromEntries(
    [...Object.entries(files), [MANIFEST, strToU8(`${JSON.stringify(manifest, null, 2)}\n`)]].map(([name, data]) => [
      name,
      [data, { mtime }],
    ]),
  ) as Parameters<typeof zipSync>[0];
  const path = join(input.runDir, 'evidence.zip');
  writeFileSync(path, zipSync(entries, { level: 9 }));
  return { path, manifest };
}

export interface Verification {
  readonly ok: boolean;
  /** One line per finding: what differs, or what was checked. */
  readonly problems: readonly string[];
  readonly manifest?: EvidenceManifest;
}

/** Checks an evidence archive against its own manifest. Pure over the archive's bytes. */
export function verifyEvidence(zip: Uint8Array): Verification {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch (error) {
    return { ok: false, problems: [`not a zip archive (${(error as Error).message})`] };
  }
  const raw = files[MANIFEST];
  if (raw === undefined) return { ok: false, problems: [`no ${MANIFEST} in the archive`] };
  let manifest: EvidenceManifest;
  try {
    manifest = JSON.parse(strFromU8(raw)) as EvidenceManifest;
  } catch (error) {
    return { ok: false, problems: [`${MANIFEST} is not JSON (${(error as Error).message})`] };
  }
  if (manifest.format !== MANIFEST_FORMAT || !Array.isArray(manifest.files))
    return { ok: false, problems: [`${MANIFEST} is not an ${MANIFEST_FORMAT} manifest`] };
  const problems: string[] = [];
  const listed = new Set(manifest.files.map((f) => f.name));
  for (const file of manifest.files) {
    const data = files[file.name];
    if (data === undefined) problems.push(`${file.name}: listed in the manifest but missing from the archive`);
    else if (sha256(data) !== file.sha256)
      problems.push(
        `${file.name}: SHA-256 ${sha256(data)} differs from the manifest's ${file.sha256} (the file was changed)`,
      );
  }
  for (const name of Object.keys(files))
    if (name !== MANIFEST && !listed.has(name)) problems.push(`${name}: in the archive but not in the manifest`);
  for (const name of REPORT_FILES)
    if (!listed.has(name)) problems.push(`${name}: the manifest does not list this report`);
  // The manifest's own claims must agree with the report it lists.
  const reportJson = files['report.json'];
  if (reportJson !== undefined) {
    try {
      const report = JSON.parse(strFromU8(reportJson)) as RunReport;
      if (report.startedAt !== manifest.run?.startedAt)
        problems.push(
          `manifest run.startedAt ${manifest.run?.startedAt} differs from report.json's ${report.startedAt}`,
        );
      if (report.target?.kind !== manifest.target?.kind)
        problems.push(
          `manifest target.kind ${manifest.target?.kind} differs from report.json's ${report.target?.kind}`,
        );
      if (report.waivers?.mode !== manifest.waivers?.mode)
        problems.push(
          `manifest waivers.mode ${manifest.waivers?.mode} differs from report.json's ${report.waivers?.mode}`,
        );
      if (report.suiteVersion !== manifest.suite?.version)
        problems.push(
          `manifest suite.version ${manifest.suite?.version} differs from report.json's ${report.suiteVersion}`,
        );
    } catch {
      problems.push('report.json is not JSON');
    }
  }
  return { ok: problems.length === 0, problems, manifest };
}
