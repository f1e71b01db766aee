/**
 * {base_url}/openapi.json and {base_url}/docs (spec, Versioning 5). Both are served WITHOUT
 * authentication (a description and its viewer are public documentation) but count against the
 * /v1 rate limit like every /v1 request.
 *
 * openapi.json is the bundled document with `servers` set to the live base URL. /docs is a
 * Swagger UI page whose JS and CSS come from the installed swagger-ui-dist package, served under
 * /v1/docs/assets/…, so the page works with no network at all (validatorUrl off).
 */
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { openapi } from '../../contract/openapi.ts';
import { sendError } from '../http.ts';
import { site } from '../points.ts';
import type { RouteOptions } from './options.ts';

const require = createRequire(import.meta.url);
// Only the path helper: the package's index.js would load (and parse) the 1.5 MB browser
// bundle into the server, ~40 MB of RSS for nothing.
const swaggerDir: string = (require('swagger-ui-dist/absolute-path.js') as () => string)();

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout'
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Outbound Calling REST API v1 — reference</title>
  <link rel="stylesheet" href="/v1/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/v1/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/v1/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/v1/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/v1/docs/assets/init.js"></script>
</body>
</html>
`;

/** openapi.json with `servers` set to the live base URL. */
export function servedDocument(baseUrl: string): Record<string, unknown> & {
  paths: Record<string, Record<string, unknown>>;
} {
  const doc = structuredClone(openapi) as unknown as Record<string, unknown> & {
    paths: Record<string, Record<string, unknown>>;
  };
  doc.servers = [{ url: baseUrl, description: 'This reference server.' }];
  return doc;
}

export const docs = site('docs', {
  /** The description served at {base_url}/openapi.json. */
  document: (baseUrl: string): ReturnType<typeof servedDocument> => servedDocument(baseUrl),
  /** Whether {base_url}/docs (and its assets) are served. */
  served: (): boolean => true,
});

export async function docsRoute(app: FastifyInstance, { points, origin }: RouteOptions): Promise<void> {
  /** The text of each document served, by the function that made it and the base URL. */
  const texts = new WeakMap<object, Map<string, string>>();
  const assetCache = new Map<string, Buffer>();

  app.get('/v1/openapi.json', (_request, reply) => {
    const { document } = points.of(docs);
    const baseUrl = `${origin()}/v1`;
    const cache = texts.get(document) ?? new Map<string, string>();
    texts.set(document, cache);
    let text = cache.get(baseUrl);
    if (text === undefined) {
      text = JSON.stringify(document(baseUrl));
      cache.set(baseUrl, text);
    }
    return reply.type('application/json; charset=utf-8').send(text);
  });

  app.get('/v1/docs', (_request, reply) => {
    if (!points.of(docs).served()) return sendError(reply, points, 404, 'not_found', 'no such resource');
    return reply.type('text/html; charset=utf-8').send(PAGE);
  });

  app.get<{ Params: { name: string } }>('/v1/docs/assets/:name', (request, reply) => {
    const name = request.params.name;
    if (!points.of(docs).served()) return sendError(reply, points, 404, 'not_found', 'no such resource');
    if (name === 'init.js') return reply.type('application/javascript; charset=utf-8').send(INIT_JS);
    const type = ASSETS[name];
    if (type === undefined) return sendError(reply, points, 404, 'not_found', 'no such asset');
    let data = assetCache.get(name);
    if (data === undefined) {
      data = readFileSync(join(swaggerDir, name));
      assetCache.set(name, data);
    }
    return reply.type(type).header('cache-control', 'public, max-age=3600').send(data);
  });
}
