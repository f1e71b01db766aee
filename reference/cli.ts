/**
 * `npm run reference [-- flags]`: starts the reference server and serves until Ctrl-C/SIGTERM.
 *
 *   --port <n>              listen port (default 0: ephemeral)
 *   --seed <n>              data seed (default 1)
 *   --rate-limit <n>        requests per window per IP (default 100; 0 = off)
 *   --rate-window-ms <n>    rate window in ms (default 60000)
 *   --clock-scale <x>       virtual ms per real ms (default 1)
 *   --faults <id,id>        faults switched on at start
 *   --variants <id,id|all>  conformant variants switched on at start (reference/variants.ts; never faults)
 *   --trust-ca <pem path>   a CA the webhook dispatcher trusts (repeatable)
 *   --control-token <t>     bearer token of the test-control protocol (default: random, printed;
 *                           or the CONTROL_TOKEN environment variable)
 *   --json                  print ONE line with the fixtures JSON first (for scripts)
 *
 * A bad flag prints one line on stderr saying what is wrong and how to fix it; exit code 2.
 */
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { limits } from '../contract/openapi.ts';
import { unknownFaultIds } from './faults.ts';
import { startReferenceServer } from './server.ts';
import { expandVariantIds, unknownVariantIds } from './variants.ts';
import type { ReferenceOptions, ReferenceServer } from './server.ts';

class UsageError extends Error {}

function integer(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got "${raw}"`);
  }
  return Number(raw);
}

function parse(argv: string[]): { options: ReferenceOptions; json: boolean } {
  const config = {
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      seed: { type: 'string' },
      'rate-limit': { type: 'string' },
      'rate-window-ms': { type: 'string' },
      'clock-scale': { type: 'string' },
      faults: { type: 'string' },
      variants: { type: 'string' },
      'trust-ca': { type: 'string', multiple: true },
      'control-token': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  } satisfies ParseArgsConfig;
  let values: ReturnType<typeof parseArgs<typeof config>>['values'];
  try {
    values = parseArgs(config).values;
  } catch (e) {
    throw new UsageError(
      `${(e as Error).message.split('\n')[0]} ` +
        '(flags: --port --seed --rate-limit --rate-window-ms --clock-scale --faults --variants --trust-ca ' +
        '--control-token --json)',
    );
  }
  if (values.help) {
    process.stdout.write(
      'usage: occ reference [--port n] [--seed n] [--rate-limit n|0] [--rate-window-ms n] [--clock-scale x] ' +
        '[--faults id,id] [--variants id,id|all] [--trust-ca pem] [--control-token t] [--json]\n',
    );
    process.exit(0);
  }
  const port = integer('port', values.port, 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const seed = integer('seed', values.seed, 0);
  const perWindow = integer('rate-limit', values['rate-limit'], 0);
  const windowMs = integer('rate-window-ms', values['rate-window-ms'], 1);
  let clockScale: number | undefined;
  if (values['clock-scale'] !== undefined) {
    clockScale = Number(values['clock-scale']);
    if (values['clock-scale'].trim() === '' || !Number.isFinite(clockScale) || clockScale < 0) {
      throw new UsageError(
        `--clock-scale must be a number >= 0 (virtual ms per real ms), got "${values['clock-scale']}"`,
      );
    }
  }
  const faults =
    values.faults === undefined
      ? []
      : values.faults
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const unknown = unknownFaultIds(faults);
  if (unknown.length > 0)
    throw new UsageError(
      `unknown fault id ${unknown.join(', ')}; GET /_reference/faults or reference/faults.ts lists them`,
    );
  const variantIds = expandVariantIds(
    values.variants === undefined
      ? []
      : values.variants
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
  );
  const unknownVariants = unknownVariantIds(variantIds);
  if (unknownVariants.length > 0)
    throw new UsageError(
      `unknown variant id ${unknownVariants.join(', ')}; reference/variants.ts lists them (or use --variants all)`,
    );
  const trustedCaPem = (values['trust-ca'] ?? []).map((path) => {
    try {
      const pem = readFileSync(path, 'utf8');
      if (!pem.includes('-----BEGIN CERTIFICATE-----'))
        throw new UsageError(`--trust-ca ${path} holds no PEM certificate`);
      return pem;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(
        `--trust-ca ${path} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  });
  const options: ReferenceOptions = {
    faults,
    variants: variantIds,
    rateLimit:
      perWindow === 0 ? false : { perWindow: perWindow ?? limits.requestsPerMinute, windowMs: windowMs ?? 60_000 },
  };
  if (port !== undefined) options.port = port;
  if (seed !== undefined) options.seed = seed;
  if (clockScale !== undefined) options.clockScale = clockScale;
  if (trustedCaPem.length > 0) options.trustedCaPem = trustedCaPem;
  const controlToken = values['control-token'] ?? process.env.CONTROL_TOKEN;
  if (controlToken !== undefined) {
    if (!/^[\x21-\x7e]{16,}$/.test(controlToken))
      throw new UsageError(
        '--control-token (or CONTROL_TOKEN) must be at least 16 printable characters without spaces',
      );
    options.controlToken = controlToken;
  }
  return { options, json: values.json === true };
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  let parsed: { options: ReferenceOptions; json: boolean };
  try {
    parsed = parse([...argv]);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`reference: ${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
  let server: ReferenceServer;
  try {
    server = await startReferenceServer(parsed.options);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'EADDRINUSE' ? 'the port is in use; pick another with --port or use --port 0' : err.message;
    process.stderr.write(`reference: cannot start: ${why}\n`);
    process.exit(2);
  }
  const f = server.fixtures;
  if (parsed.json) process.stdout.write(`${JSON.stringify(f)}\n`);
  const rateLimit =
    parsed.options.rateLimit === false
      ? 'off'
      : `${parsed.options.rateLimit?.perWindow} per ${(parsed.options.rateLimit?.windowMs ?? 0) / 1000} s per IP`;
  const lines = [
    'Outbound Calling API v1 — reference server',
    `  base URL     ${f.baseUrl}`,
    `  auth URL     ${f.authUrl}   (token: ${f.authUrl}/oauth/token)`,
    `  control URL  ${f.controlUrl}   (test-control protocol, control-openapi.json; token ${f.controlToken})`,
    `  reference    ${f.referenceUrl}   (faults, reset: reference only)`,
    `  docs         ${f.baseUrl}/docs`,
    `  rate limit   ${rateLimit}`,
    `  faults       ${parsed.options.faults?.length ? parsed.options.faults.join(', ') : 'none'}`,
    `  variants     ${parsed.options.variants?.length ? parsed.options.variants.join(', ') : 'none'}`,
    '  tokens',
    ...Object.entries(f.tokens).map(([name, token]) => `    ${name.padEnd(14)} ${token}`),
    `  OAuth client  id ${f.oauth.clientId}  secret ${f.oauth.clientSecret}  scopes ${f.oauth.scopes.join(' ')}`,
    `  agents        provisioned ${f.agents.provisioned}  unprovisioned ${f.agents.unprovisioned}  ` +
      `foreign ${f.agents.foreign}  noTrunk ${f.agents.noTrunk}  noDialer ${f.agents.noDialer}`,
    'Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    server.close().then(
      () => process.exit(signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

// Only as the entry point: `occ reference` imports main.
if (import.meta.main) await main();
