/**
 * The embedded run's receiver certificate, made once and reused: generating a throwaway CA and
 * server certificate (and loading the ASN.1 library that does it) is the same work every run,
 * and on a busy 2-core machine it was a visible part of a run's start-up.
 *
 * Kept in a directory of this user's own under the OS temp dir (0700, the file 0600: it holds the
 * CA's private key), reused while the server certificate stays valid for at least another day
 * (they are made for 7 days), made anew otherwise, or when the directory is not private to this
 * user, or the file is unreadable or broken. The CA is trusted only by the reference server of
 * the run that reads it, so the key being reused across one user's runs opens nothing new.
 * Concurrent runs (the fault catalogue) each write a whole file and rename it into place.
 */
import { X509Certificate } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { generateTlsMaterial } from './receiver.ts';

export interface TlsMaterial {
  readonly caCertPem: string;
  readonly cert: string;
  readonly key: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Reused only while the server certificate has at least this long left. */
const MIN_REMAINING_MS = DAY_MS;

/** Whether `material` is whole and its server certificate, signed by its CA, is valid until now + MIN_REMAINING_MS. */
export function usable(material: unknown, now = Date.now()): material is TlsMaterial {
  if (typeof material !== 'object' || material === null) return false;
  const { caCertPem, cert, key } = material as Record<string, unknown>;
  if (
    typeof caCertPem !== 'string' ||
    typeof cert !== 'string' ||
    typeof key !== 'string' ||
    !key.includes('PRIVATE KEY')
  )
    return false;
  try {
    const server = new X509Certificate(cert);
    const ca = new X509Certificate(caCertPem);
    return (
      server.verify(ca.publicKey) &&
      Date.parse(server.validFrom) <= now &&
      Date.parse(server.validTo) - now >= MIN_REMAINING_MS
    );
  } catch {
    return false;
  }
}

/** The cache directory, made private to this user; undefined when it exists but isn't (then nothing is cached). */
function privateDirectory(): string | undefined {
  const uid = process.getuid?.() ?? userInfo().username;
  const dir = join(tmpdir(), `occ-receiver-tls-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    const ours = process.getuid === undefined || stat.uid === process.getuid();
    if (!stat.isDirectory() || !ours || (stat.mode & 0o077) !== 0) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

export async function cachedTlsMaterial(): Promise<TlsMaterial> {
  const dir = privateDirectory();
  const file = dir === undefined ? undefined : join(dir, 'receiver-tls.json');
  if (file !== undefined) {
    try {
      const stored: unknown = JSON.parse(readFileSync(file, 'utf8'));
      if (usable(stored)) return stored;
    } catch {
      // missing or broken: made anew below
    }
  }
  const material = await generateTlsMaterial();
  if (file !== undefined) {
    try {
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, JSON.stringify(material), { mode: 0o600 });
      chmodSync(partial, 0o600);
      renameSync(partial, file);
    } catch {
      // A cache that can't be written costs the next run the generation, nothing more.
    }
  }
  return material;
}
