/** The rules of versioning.suite.ts that need no target: pure, so test/suites/versioning.test.ts can hold them. */

/** The first server URL of a document with its variables at their defaults. */
export function serverUrl(doc: unknown): string | undefined {
  type Server = { url?: unknown; variables?: Record<string, { default?: unknown }> };
  const server = (doc as { servers?: Server[] }).servers?.[0];
  if (typeof server?.url !== 'string') return undefined;
  return server.url.replace(/\{([^}]+)\}/g, (_, name: string) => String(server.variables?.[name]?.default ?? ''));
}
