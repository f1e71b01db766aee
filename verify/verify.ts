/**
 * `occ verify <evidence.zip>`: checks an evidence archive (`occ run --evidence`) against its
 * manifest and says what differs. Exit 0 intact, 1 something differs, 2 the archive cannot be read
 * or the command line is wrong. Whether the run used this suite's own openapi.json and catalogue
 * is said too, as information: a buyer may hold another version of the suite.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { catalogueSha256, sha256, verifyEvidence } from '../harness/report/evidence.ts';
import { packageRoot } from '../cli/package-root.ts';

const usage = 'Usage: occ verify <evidence.zip>   checks the archive `occ run --evidence` wrote against its manifest';

export async function main(argv: readonly string[]): Promise<number> {
  const config = {
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { help: { type: 'boolean', short: 'h' } },
  } satisfies ParseArgsConfig;
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    process.stderr.write(`verify: ${(error as Error).message.split('\n')[0]}; ${usage}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    process.stderr.write(`verify: name one evidence.zip; ${usage}\n`);
    return 2;
  }
  const file = parsed.positionals[0]!;
  let zip: Uint8Array;
  try {
    zip = readFileSync(file);
  } catch (error) {
    process.stderr.write(
      `verify: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})\n`,
    );
    return 2;
  }
  const { ok, problems, manifest } = verifyEvidence(zip);
  if (manifest === undefined) {
    process.stderr.write(`verify: ${file}: ${problems.join('; ')}\n`);
    return 2;
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`evidence ${file}`);
  const commit =
    manifest.suite.gitCommit === null
      ? ' (no git commit: an installed package)'
      : ` at commit ${manifest.suite.gitCommit}`;
  out(`  suite       ${manifest.suite.name} ${manifest.suite.version}${commit}`);
  out(`  run         started ${manifest.run.startedAt}, seed ${manifest.run.seed}, exit code ${manifest.run.exitCode}`);
  out(`  target      ${manifest.target.origin}`);
  out(
    `  waivers     ${manifest.waivers.mode}` +
      `${manifest.waivers.entries > 0 ? ` (${manifest.waivers.entries} entries in the file)` : ''}`,
  );
  const configured =
    manifest.configuration.set.length > 0 ? manifest.configuration.set.join(', ') : 'nothing (the embedded reference)';
  out(`  configured  ${configured} · fingerprint ${manifest.configuration.fingerprint.slice(0, 16)}…`);
  const sameContract = sha256(readFileSync(join(packageRoot, 'openapi.json'))) === manifest.contract.openapiSha256;
  const sameCatalogue = catalogueSha256() === manifest.contract.catalogueSha256;
  out(
    `  contract    openapi.json ${sameContract ? 'is' : 'is NOT'} this suite's; ` +
      `requirement catalogue ${sameCatalogue ? 'is' : 'is NOT'} this suite's (information, not a verdict)`,
  );
  for (const f of manifest.files)
    out(`  ${problems.some((p) => p.startsWith(`${f.name}:`)) ? '✗' : '✓'} ${f.name.padEnd(12)} ${f.sha256}`);
  if (ok) {
    out('verify: intact: every file matches the manifest (not signed: this proves integrity, not authorship)');
    return 0;
  }
  for (const problem of problems) process.stdout.write(`verify: DIFFERS: ${problem}\n`);
  return 1;
}
