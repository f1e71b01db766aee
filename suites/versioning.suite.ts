import { describe } from 'vitest';
import { compareDocuments } from '../contract/compatibility.ts';
import { openapi } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { codeOf } from '../harness/checks/verdicts.ts';
import { session } from '../harness/run/session.ts';
import { serverUrl } from './rules/versioning.ts';

async function servedDocument(t: CheckTools): Promise<unknown> {
  // A description is public documentation, but a target may still want the token: send it.
  const exchange = await t.call({ method: 'GET', path: '/openapi.json', token: t.token('all') });
  t.ensure(exchange.status === 200, `GET {base_url}/openapi.json: expected 200, got ${codeOf(exchange)}`);
  t.ensure(
    exchange.json !== undefined,
    `GET {base_url}/openapi.json is not JSON: ${exchange.jsonError ?? exchange.rawBody.slice(0, 80)}`,
  );
  return exchange.json;
}

describe('Versioning', () => {
  // Every operation under /v1; additions to v1 are recorded.
  check(
    '{base_url}/openapi.json serves a valid OpenAPI 3.1 description under /v1, with no breaking change to v1 in place',
    {
      verifies: [
        'VERSION-OPENAPI-SERVED',
        'VERSION-PATH-V1',
        'VERSION-NO-BREAKING-IN-PLACE',
        'VERSION-ADDITIVE-CHANGES',
      ],
      needs: { tokens: ['all'] },
      requests: 1,
    },
    async (t) => {
      t.ensure(
        new URL(t.target.baseUrl).pathname.replace(/\/+$/, '').endsWith('/v1'),
        `the base URL ${t.target.baseUrl} does not end in /v1`,
      );
      const served = await servedDocument(t);
      // Imported here, when the description arrived: the validator library and its ajv (part of a
      // worker's start) load only in the worker that runs this check, not in every one that imports the file.
      const { createDescriptionValidator } = await import('../contract/openapi-description.ts');
      const validator = createDescriptionValidator({ cacheDirectory: session().context.cacheDirectory });
      const result = await validator.validate(structuredClone(served) as Parameters<typeof validator.validate>[0]);
      t.ensure(
        result.valid,
        `the served description is not a valid OpenAPI document: ` +
          `${String(JSON.stringify(result.errors ?? result)).slice(0, 300)}`,
      );
      t.ensure(validator.version === '3.1', `the served description is OpenAPI ${validator.version}, must be 3.1`);
      const server = serverUrl(served);
      t.ensure(
        server === undefined || server.replace(/\/+$/, '').endsWith('/v1'),
        `the served description's server URL is ${server}, must end in /v1`,
      );
      const { breaking, additions } = compareDocuments(openapi, served);
      t.observe(
        'VERSION-ADDITIVE-CHANGES',
        additions.length === 0
          ? 'the served description adds nothing to the bundled v1'
          : `additions: ${additions.join('; ')}`,
      );
      t.ensure(
        breaking.length === 0,
        `the served description breaks v1 in place (breaking changes ship under a new prefix): ${breaking.join('; ')}`,
      );
    },
  );

  check(
    '{base_url}/docs serves an interactive reference as an HTML page (directly or after one redirect)',
    {
      verifies: ['VERSION-DOCS-SERVED'],
      needs: { tokens: ['all'] },
      requests: 1, // a redirect, when there is one, adds one
    },
    async (t) => {
      let exchange = await t.call({
        method: 'GET',
        path: '/docs',
        token: t.token('all'),
        headers: { accept: 'text/html' },
      });
      // Serving the page behind a redirect (e.g. /docs → /docs/) is serving it too: one hop, same origin only.
      const location = exchange.responseHeaders.location;
      if ([301, 302, 303, 307, 308].includes(exchange.status ?? 0) && location !== undefined) {
        const next = new URL(location, exchange.url);
        t.ensure(
          next.origin === new URL(exchange.url).origin,
          `GET {base_url}/docs redirects to another origin (${next.origin}); the reference must be served at ` +
            `{base_url}/docs`,
        );
        exchange = await t.call({
          method: 'GET',
          path: next.href,
          token: t.token('all'),
          headers: { accept: 'text/html' },
          validate: false,
        });
      }
      t.ensure(exchange.status === 200, `GET {base_url}/docs: expected 200, got ${codeOf(exchange)}`);
      const type = exchange.responseHeaders['content-type'] ?? '';
      t.ensure(/^text\/html\b/i.test(type), `GET {base_url}/docs has content type "${type}", must be an HTML page`);
      t.ensure(
        /<html[\s>]/i.test(exchange.rawBody),
        'GET {base_url}/docs answered text/html without an <html> document',
      );
    },
  );

  check(
    'A /v2 prefix is probed next to /v1 (whether it answers is recorded)',
    {
      verifies: ['VERSION-PREVIOUS-12-MONTHS'],
      needs: { tokens: ['all'] },
      requests: 1,
    },
    async (t) => {
      const base = new URL(t.target.baseUrl);
      const v2 = `${base.origin}${base.pathname.replace(/\/v1\/?$/, '/v2')}/me`;
      const exchange = await t.call({ method: 'GET', path: v2, token: t.token('all') });
      // A v2 may or may not exist; either way the answer must be an HTTP answer, not a hang.
      t.ensure(exchange.status !== undefined, 'GET {origin}/v2/me got no answer');
      t.observe(
        'VERSION-PREVIOUS-12-MONTHS',
        `GET {origin}/v2/me answered ${codeOf(exchange)}: ` +
          `${exchange.status === 200 ? 'a v2 is served next to v1' : 'no v2 yet, so v1 is the current version'}`,
      );
    },
  );
});
