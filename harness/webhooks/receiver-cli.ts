/**
 * `npm run receiver` — runs the webhook receiver until Ctrl-C / SIGTERM.
 *
 * Environment:
 *   RECEIVER_PORT        port to listen on (default 0 = any free port)
 *   RECEIVER_HOST        interface (default 127.0.0.1)
 *   WEBHOOK_PUBLIC_URL   the https URL the API must deliver to (e.g. a tunnel to this port)
 *   RECEIVER_TLS_CERT    path of a PEM certificate to serve instead of a generated one
 *   RECEIVER_TLS_KEY     path of its PEM private key (both or neither)
 *   RECEIVER_TOKEN       makes it a service next to the target: the query ("pull") API needs
 *                        `Authorization: Bearer <token>`, and the receiver is store-only (it never
 *                        takes a secret; the suite verifies signatures). Required on any
 *                        RECEIVER_HOST that is not loopback.
 *   RECEIVER_PLAIN_HTTP  true: plain HTTP, for a deployment behind a TLS-terminating proxy
 *                        (the target still delivers to an https WEBHOOK_PUBLIC_URL)
 *   RECEIVER_MAX_DELIVERIES  deliveries kept (default 10000, the oldest dropped first)
 *   RECEIVER_MAX_AGE_S   forget deliveries and registered paths older than this (default: never
 *                        for a local receiver, 3600 with RECEIVER_TOKEN)
 * Prints the URL, the local URL and the path of the generated CA certificate (a temp file,
 * removed on exit) that senders pass as `ca`. Configuration errors: one line on stderr, exit 2.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_DELIVERIES, describeStartError, startReceiver, type ReceiverOptions } from './receiver.ts';

type Parsed = { ok: true; options: ReceiverOptions } | { ok: false; message: string };

const USAGE =
  'configure with env RECEIVER_PORT, RECEIVER_HOST, WEBHOOK_PUBLIC_URL, RECEIVER_TLS_CERT + RECEIVER_TLS_KEY, ' +
  'RECEIVER_TOKEN, RECEIVER_PLAIN_HTTP, RECEIVER_MAX_DELIVERIES, RECEIVER_MAX_AGE_S; the command takes no arguments';

/** A service's default retention: long enough for a run's retries within its time budget. */
export const SERVICE_MAX_AGE_S = 3600;

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function wholeNumber(
  env: Record<string, string | undefined>,
  variable: string,
  max: number,
): { ok: true; value: number | undefined } | { ok: false; message: string } {
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  if (!/^[0-9]{1,9}$/.test(raw) || Number(raw) < 1 || Number(raw) > max)
    return { ok: false, message: `${variable}="${raw}" must be a whole number from 1 to ${max}` };
  return { ok: true, value: Number(raw) };
}

function readPem(variable: string, path: string): { ok: true; pem: string } | { ok: false; message: string } {
  try {
    return { ok: true, pem: readFileSync(path, 'utf8') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    return { ok: false, message: `${variable}=${path} cannot be read (${code}); point it at an existing PEM file` };
  }
}

/** Pure validation of the command line and environment into receiver options. */
export function parseCliConfig(
  env: Record<string, string | undefined>,
  argv: readonly string[],
  read = readPem,
): Parsed {
  if (argv.length > 0) return { ok: false, message: `unexpected argument "${argv[0]}"; ${USAGE}` };
  const options: ReceiverOptions = {};
  const port = env.RECEIVER_PORT;
  if (port !== undefined && port !== '') {
    if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) {
      return {
        ok: false,
        message: `RECEIVER_PORT="${port}" is not a port number; use an integer 0..65535 (0 = any free port)`,
      };
    }
    options.port = Number(port);
  }
  if (env.RECEIVER_HOST) options.host = env.RECEIVER_HOST;
  const publicUrl = env.WEBHOOK_PUBLIC_URL;
  if (publicUrl) {
    let protocol = '';
    try {
      protocol = new URL(publicUrl).protocol;
    } catch {
      return { ok: false, message: `WEBHOOK_PUBLIC_URL="${publicUrl}" is not a URL; give an absolute https:// URL` };
    }
    if (protocol !== 'https:')
      return {
        ok: false,
        message: `WEBHOOK_PUBLIC_URL="${publicUrl}" must use https (the API only delivers to https targets)`,
      };
    options.publicUrl = publicUrl;
  }
  const certPath = env.RECEIVER_TLS_CERT;
  const keyPath = env.RECEIVER_TLS_KEY;
  if (Boolean(certPath) !== Boolean(keyPath)) {
    return {
      ok: false,
      message: 'RECEIVER_TLS_CERT and RECEIVER_TLS_KEY must be set together (or neither, to generate a certificate)',
    };
  }
  if (certPath && keyPath) {
    const cert = read('RECEIVER_TLS_CERT', certPath);
    if (!cert.ok) return cert;
    const key = read('RECEIVER_TLS_KEY', keyPath);
    if (!key.ok) return key;
    options.tls = { cert: cert.pem, key: key.pem };
  }
  const plain = env.RECEIVER_PLAIN_HTTP?.trim().toLowerCase();
  if (plain !== undefined && plain !== '' && !['true', 'false', '1', '0', 'yes', 'no'].includes(plain)) {
    return { ok: false, message: `RECEIVER_PLAIN_HTTP="${env.RECEIVER_PLAIN_HTTP}" must be true or false` };
  }
  if (plain === 'true' || plain === '1' || plain === 'yes') {
    if (options.tls)
      return {
        ok: false,
        message:
          'RECEIVER_PLAIN_HTTP=true and RECEIVER_TLS_CERT exclude each other: ' +
          'plain HTTP is for a receiver behind a TLS-terminating proxy',
      };
    options.plainHttp = true;
  }
  const token = env.RECEIVER_TOKEN?.trim();
  if (token !== undefined && token !== '') {
    if (/\s/.test(token) || token.length < 16)
      return {
        ok: false,
        message: 'RECEIVER_TOKEN must be at least 16 characters without spaces (e.g. openssl rand -hex 24)',
      };
    options.token = token;
    options.storeOnly = true;
  }
  if (options.host !== undefined && !isLoopbackHost(options.host) && options.token === undefined) {
    return {
      ok: false,
      message:
        `RECEIVER_HOST=${options.host} is not loopback: set RECEIVER_TOKEN ` +
        'so the deliveries and the pull API are not open to anyone who can reach it',
    };
  }
  const maxDeliveries = wholeNumber(env, 'RECEIVER_MAX_DELIVERIES', 1_000_000);
  if (!maxDeliveries.ok) return maxDeliveries;
  if (maxDeliveries.value !== undefined) options.maxDeliveries = maxDeliveries.value;
  const maxAge = wholeNumber(env, 'RECEIVER_MAX_AGE_S', 7 * 24 * 3600);
  if (!maxAge.ok) return maxAge;
  const ageSeconds = maxAge.value ?? (options.token === undefined ? undefined : SERVICE_MAX_AGE_S);
  if (ageSeconds !== undefined) options.maxAgeMs = ageSeconds * 1000;
  return { ok: true, options };
}

function fail(message: string, code = 2): never {
  process.stderr.write(`receiver: ${message}\n`);
  process.exit(code);
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h')) {
    process.stdout.write(`usage: occ receiver (npm run receiver); ${USAGE}\n`);
    return;
  }
  const parsed = parseCliConfig(process.env, argv);
  if (!parsed.ok) fail(parsed.message);
  const receiver = await startReceiver(parsed.options).catch((e: unknown) =>
    fail(describeStartError(e, parsed.options)),
  );

  let caDir: string | undefined;
  if (receiver.caCertPem) {
    caDir = mkdtempSync(join(tmpdir(), 'webhook-receiver-'));
    writeFileSync(join(caDir, 'ca.pem'), receiver.caCertPem);
  }
  const lines = [
    `Webhook receiver listening on ${receiver.url}`,
    receiver.url !== receiver.localUrl ? `  local URL:      ${receiver.localUrl}` : undefined,
    caDir
      ? `  CA certificate: ${join(caDir, 'ca.pem')} (senders trust it via \`ca\`, or NODE_EXTRA_CA_CERTS for node)`
      : parsed.options.plainHttp
        ? '  TLS: none here (plain HTTP behind a TLS-terminating proxy)'
        : '  TLS: user-supplied certificate',
    `  query API:      ${receiver.localUrl}/_receiver/deliveries  ` +
      `(PUT ${receiver.localUrl}/_receiver/paths?path=/hooks/x {secret?, plan?})`,
    parsed.options.token === undefined
      ? undefined
      : '  pull API:       bearer RECEIVER_TOKEN required; store-only (the suite verifies signatures); ' +
        `kept: ${parsed.options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES} deliveries, ` +
        `${(parsed.options.maxAgeMs ?? 0) / 1000} s`,
    'Ctrl-C to stop.',
  ].filter((line) => line !== undefined);
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(130); // a second Ctrl-C means "now"
    stopping = true;
    receiver.close().finally(() => {
      if (caDir) rmSync(caDir, { recursive: true, force: true });
      process.stdout.write('Webhook receiver stopped.\n');
      process.exit(0);
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Run only as the entry point, so parseCliConfig can be imported without side effects.
if (import.meta.main) await main();
