/** The rules of hooks.suite.ts that need no target: pure, so test/suites/hooks.test.ts can hold them. */
import type { Exchange } from '../../harness/http/client.ts';

/** An https URL of exactly `length` characters under `base` (padding in the last path segment). */
export function urlOfLength(base: string, length: number): string {
  const prefix = `${base}/hooks/len-`;
  if (prefix.length > length) throw new Error(`${base} is too long for a ${length}-character URL`);
  return prefix + 'a'.repeat(length - prefix.length);
}

/** Which of `secrets` appear anywhere in the given answers (status line aside). */
export function secretsIn(
  exchanges: readonly Pick<Exchange, 'rawBody' | 'responseHeaders'>[],
  secrets: readonly string[],
): string[] {
  return secrets.filter((secret) =>
    exchanges.some(
      (e) => e.rawBody.includes(secret) || Object.values(e.responseHeaders).some((v) => v.includes(secret)),
    ),
  );
}
