/**
 * Faults of the standards under the spec (../faults-standards.ts describes each): the fields and
 * octets of answers bent on the `wire` point (../wire.ts); std-delivery-bom is the dispatcher's (./delivery.ts).
 */
import type { FastifyReply } from 'fastify';
import { faultsAt } from '../points.ts';
import { type Outgoing, wire } from '../wire.ts';

const isApi = (o: Outgoing) => o.path.startsWith('/v1/');
const isToken = (o: Outgoing) => o.path === '/oauth/token';
const isJson = (reply: FastifyReply) => /json/i.test(String(reply.getHeader('content-type') ?? ''));
const status = (code: number) => (o: Outgoing) => o.reply.statusCode === code;
const apiUnauthorized = (o: Outgoing) => isApi(o) && o.reply.statusCode === 401;
const clientRefused = (o: Outgoing) => isToken(o) && o.reply.statusCode === 401;

/** An answer that `when` picks gets its fields changed by `bend`; its content goes out as it was. */
const fields =
  (when: (o: Outgoing) => boolean, bend: (reply: FastifyReply, o: Outgoing) => void) =>
  (o: Outgoing, next: (o: Outgoing) => unknown): unknown => {
    const payload = next(o);
    if (when(o)) bend(o.reply, { ...o, payload });
    return payload;
  };

/** An answer that `when` picks gets its JSON object changed by `edit` (other content as it was). */
const content =
  (when: (o: Outgoing) => boolean, edit: (body: Record<string, unknown>) => void) =>
  (o: Outgoing, next: (o: Outgoing) => unknown): unknown => {
    const payload = next(o);
    if (!when(o) || typeof payload !== 'string') return payload;
    try {
      const body = JSON.parse(payload) as Record<string, unknown>;
      edit(body);
      return JSON.stringify(body);
    } catch {
      return payload;
    }
  };

/** The Bearer challenge with the refusal's message as error_description, quotes escaped as a quoted-string. */
function quotedChallenge(reply: FastifyReply, o: Outgoing): void {
  const message = (JSON.parse(String(o.payload)) as { message?: string }).message ?? 'refused';
  const quoted = `"${message.replaceAll('"', '\\"')} (presented \\"Bearer ...\\")"`;
  reply.header('www-authenticate', `Bearer realm="api", error="invalid_token", error_description=${quoted}`);
}

export default faultsAt(wire, {
  'std-401-no-challenge': { answer: fields(apiUnauthorized, (reply) => reply.removeHeader('www-authenticate')) },
  'std-challenge-quoted-description': { answer: fields(apiUnauthorized, quotedChallenge) },
  'std-405-no-allow': { answer: fields(status(405), (reply) => reply.removeHeader('allow')) },
  'std-allow-space-separated': {
    answer: fields(status(405), (reply) => {
      reply.header('allow', String(reply.getHeader('allow') ?? '').replaceAll(', ', ' '));
    }),
  },
  'std-no-date': {
    answer: fields(
      () => true,
      (reply) => {
        reply.raw.sendDate = false;
      },
    ),
  },
  'std-date-iso': {
    answer: fields(
      () => true,
      (reply) => reply.header('date', new Date().toISOString()),
    ),
  },
  'std-last-modified-ahead': {
    answer: fields(status(200), (reply) =>
      reply.header('last-modified', new Date(Date.now() + 3_600_000).toUTCString()),
    ),
  },
  'std-content-type-twice': {
    answer: fields(
      (o) => isJson(o.reply),
      (reply) => reply.header('content-type', [String(reply.getHeader('content-type')), 'application/json']),
    ),
  },
  'std-length-on-204': { answer: fields(status(204), (reply) => reply.header('content-length', '0')) },
  'std-chunked-204': { answer: fields(status(204), (reply) => reply.header('transfer-encoding', 'chunked')) },
  'std-json-bom': {
    answer: (o, next) => {
      const payload = next(o);
      return isJson(o.reply) && typeof payload === 'string' ? `\uFEFF${payload}` : payload;
    },
  },
  'std-token-expires-in-string': {
    answer: content(
      (o) => isToken(o) && o.reply.statusCode === 200,
      (body) => {
        body.expires_in = String(body.expires_in);
      },
    ),
  },
  'std-token-error-code-unregistered': {
    answer: content(clientRefused, (body) => {
      body.error = 'invalid_client_secret';
    }),
  },
  'std-token-error-description-quotes': {
    answer: content(
      (o) => isToken(o) && o.reply.statusCode >= 400,
      (body) => {
        body.error_description = 'client "client_..." refused';
      },
    ),
  },
  // The length of what is sent (nothing), where GET's is due: the framework sizes the empty payload.
  'std-head-length-zero': {
    answer: (o, next) => {
      const payload = next(o);
      return o.method === 'HEAD' && o.reply.statusCode === 200 ? '' : payload;
    },
  },
  'std-token-401-no-challenge': { answer: fields(clientRefused, (reply) => reply.removeHeader('www-authenticate')) },
  // A map of header lines that keeps the first of each name: two Host lines, or a bad one, pass.
  'std-host-lines-unchecked': { hostProblem: () => undefined },
  // A "100 Continue" written before every API answer, whatever the client's version.
  'std-continue-to-http10': {
    answer: (o, next) => {
      if (isApi(o) && !o.reply.raw.headersSent) o.reply.raw.writeContinue();
      return next(o);
    },
  },
  // GET /agents streamed with a Server-Timing trailer: chunked, whatever the request's version.
  'std-chunked-to-http10': {
    answer: fields(
      (o) => o.method === 'GET' && o.path === '/v1/agents' && o.reply.statusCode === 200,
      (reply) => reply.trailer('server-timing', (_reply, _payload, done) => done(null, 'db;dur=1')),
    ),
  },
  // "Connection: keep-alive" set on every API answer, over the client's "close".
  'std-keep-alive-forced': { answer: fields(isApi, (reply) => reply.header('connection', 'keep-alive')) },
});
