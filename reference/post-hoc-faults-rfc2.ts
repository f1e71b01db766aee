/**
 * The third held-out set of post-hoc faults, written after the protocol lint, the relations and
 * the "every element of a kind" operators landed, from the MUST-level requirements of
 * the standards the spec stands on: RFC 9110 and RFC 9112 (HTTP), RFC 6749 (OAuth 2.0), RFC 8414
 * (its metadata), RFC 9562 (UUIDs) and the webhook sender as an HTTP client. Each is a plausible
 * slip of a real implementer (a framework feature switched on, a header copied from elsewhere,
 * a shortcut in a parser) and none was chosen by reading what the suite checks: they were written
 * from the standards' sentences and then measured, the suite unchanged.
 *
 * Same shape as ./post-hoc-faults-rfc.ts: `standard` names the section, `sentence` quotes it word
 * for word, `breaks` is the spec sentence that imports the standard (a substring of the spec).
 * Switched on like the other sets (`occ reference --faults rfc2-…`, OCC_REFERENCE_FAULTS, the
 * control API) and implemented in ./post-hoc-slips-rfc2.ts; `npm run bench:post-hoc -- --set rfc2`
 * measures them.
 *
 * Data only, no imports but types: ./faults.ts reads the ids from here.
 */
import type { RfcPostHocFault } from './post-hoc-faults-rfc.ts';

const REST = 'exposed as a JSON REST API with webhooks';
const ALL_JSON = 'All requests and responses are JSON';
const OAUTH = 'a short-lived token obtained by OAuth 2.0 `client_credentials` from {auth_url}/oauth/token';
const METADATA = 'discovery metadata is at {auth_url}/.well-known/oauth-authorization-server';
const EVENTS = 'Events are delivered by HTTP POST with a JSON body';
/** RFC 6749 §5.2, what the error code invalid_request is for. */
const INVALID_REQUEST =
  'The request is missing a required parameter, includes an unsupported parameter value (other ' +
  'than grant type), repeats a parameter, includes multiple credentials, utilizes more than one mechanism for ' +
  'authenticating the client, or is otherwise malformed.';

export const rfc2PostHocFaults = [
  // ── HTTP: versions, connections, preconditions, parameters (RFC 9110, RFC 9112) ──
  {
    id: 'rfc2-early-hints-to-http10',
    class: 'an interim (1xx) answer to an HTTP/1.0 client',
    description:
      'Every GET of a documented path first sends "103 Early Hints" with a Link to /v1/openapi.json (an ' +
      "early-hints plugin switched on for the docs page, applied to every route), whatever the request's version.",
    breaks: REST,
    standard: 'RFC 9110 §15.2',
    sentence:
      'Since HTTP/1.0 did not define any 1xx status codes, a server MUST NOT send a 1xx response to an HTTP/1.0 ' +
      'client.',
    nearest: 'std-chunked-204, nm-204-with-body: the framing of a final answer; here an interim answer before it',
  },
  {
    id: 'rfc2-trailer-to-http10',
    class: 'a transfer coding in an answer to an HTTP/1.0 request',
    description:
      'GET answers carry a Server-Timing trailer field, so they are sent chunked (Transfer-Encoding: chunked, ' +
      "no Content-Length) whatever the request's version, HTTP/1.0 included.",
    breaks: REST,
    standard: 'RFC 9112 §6.1',
    sentence:
      'A server MUST NOT send a response containing Transfer-Encoding unless the corresponding request indicates ' +
      'HTTP/1.1 (or later minor revisions).',
    nearest: 'rfc-chunked-with-content-length: two framings at once; here one framing the request version forbids',
  },
  {
    id: 'rfc2-host-repeated-first-taken',
    class: 'a request with two Host field lines',
    description:
      'A front layer folds the request header into a map that keeps the first line of each name, so a request ' +
      'with two Host lines is answered as if it had the first one only.',
    breaks: REST,
    standard: 'RFC 9112 §3.2',
    sentence:
      'A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host ' +
      'header field and to any request message that contains more than one Host header field line or a Host ' +
      'header field with an invalid field value.',
    nearest: 'ambig-authorization-scopes-of-first-line: a repeated Authorization; here the Host of the request line',
  },
  {
    id: 'rfc2-connection-close-ignored',
    class: 'the "close" connection option',
    description:
      'A keep-alive middleware sets "Connection: keep-alive" on every answer, so a connection whose request said ' +
      '"Connection: close" stays open after the answer (a next request on it is answered: Node\'s parser ' +
      'refuses it with 400).',
    breaks: REST,
    standard: 'RFC 9112 §9.6',
    sentence:
      'A server that receives a "close" connection option MUST initiate closure of the connection (see below) ' +
      'after it sends the final response to the request that contained the "close" connection option.',
    nearest: 'NM-FRAMING and the lint read what an answer holds; here what the server does with the connection after',
  },
  {
    id: 'rfc2-precondition-before-auth',
    class: 'order of precondition evaluation (If-None-Match before authentication)',
    description:
      'A conditional-GET layer in front of the authentication answers "If-None-Match: *" on every GET with ' +
      '304 Not Modified, so a request with no token, or a bad one, gets 304 instead of 401.',
    breaks: 'Every endpoint requires `Authorization: Bearer <ACCESS_TOKEN>`.',
    standard: 'RFC 9110 §13.2.1',
    sentence:
      'A server MUST ignore all received preconditions if its response to the same request without those ' +
      'conditions, prior to processing the request content, would have been a status code other than a 2xx ' +
      '(Successful) or 412 (Precondition Failed).',
    nearest: 'auth families: a token accepted where it must not be; here a header answered before any token is read',
  },
  {
    id: 'rfc2-media-type-quoted-parameter-refused',
    class: 'a media-type parameter value as a quoted-string',
    description:
      'POST bodies are taken only when Content-Type is exactly "application/json" or "application/json; ' +
      'charset=utf-8" (any case); "application/json; charset=\\"utf-8\\"" or another spacing is 400 invalid_input.',
    breaks: ALL_JSON,
    standard: 'RFC 9110 §5.6.6',
    sentence:
      'A parameter value that matches the token production can be transmitted either as a token or within a ' +
      'quoted-string. The quoted and unquoted values are equivalent.',
    nearest: 'json-content-type-exact-match: any charset refused; here the charset taken, its quoted form refused',
  },
  // ── OAuth 2.0 and its metadata (RFC 6749, RFC 8414) ──
  {
    id: 'rfc2-token-scope-ignored-unreported',
    class: 'a granted scope that differs from the requested one, unreported',
    description:
      'The token endpoint ignores the requested scope and grants every scope of the client, and its answer ' +
      'never carries `scope`: a client that asked for read:cdrs holds a token of all its scopes and is not told.',
    breaks: OAUTH,
    standard: 'RFC 6749 §3.3',
    sentence:
      'If the issued access token scope is different from the one requested by the client, the authorization ' +
      'server MUST include the "scope" response parameter to inform the client of the actual scope granted.',
    nearest: 'oauth-token-widened: beyond the registration; here within it, but unsaid (the answer omits scope)',
  },
  {
    id: 'rfc2-token-repeated-scope-merged',
    class: 'a repeated token parameter merged',
    description:
      'The form parser gives an array for a repeated key and the endpoint joins it with spaces: scope=a&scope=b ' +
      'is granted as "a b" instead of refused with invalid_request.',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.2',
    sentence: INVALID_REQUEST,
    nearest: 'ambig-oauth-repeated-first-wins: the first value taken; here both merged into one the client never sent',
  },
  {
    id: 'rfc2-token-two-auth-methods-body-wins',
    class: 'two client authentication methods in one request',
    description:
      'When a token request carries both HTTP Basic and client_id/client_secret in the body, the body wins and ' +
      'the Authorization header is not read: a wrong Basic secret beside right body credentials gets a token.',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.2',
    sentence: INVALID_REQUEST,
    nearest: 'rfc-oauth-basic-unsupported: one method refused; here two methods at once taken (and one unchecked)',
  },
  {
    id: 'rfc2-metadata-grant-types-omitted',
    class: 'a metadata member omitted whose default is false for this server',
    description:
      'The discovery metadata drops grant_types_supported (optional in RFC 8414), so it declares the default, ' +
      'authorization_code and implicit, which the server does not support, and not client_credentials.',
    breaks: METADATA,
    standard: 'RFC 8414 §2',
    sentence: 'If omitted, the default value is "["authorization_code", "implicit"]".',
    nearest: 'oauth-metadata-token-endpoint-elsewhere: a member with a wrong value; here a member whose absence lies',
  },
  {
    id: 'rfc2-token-answers-form-encoded',
    class: 'media type of the token endpoint’s answers',
    description:
      'The token endpoint answers application/x-www-form-urlencoded (access_token=…&token_type=bearer…, and its ' +
      'errors the same way) unless the request’s Accept names application/json, as some providers do.',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.1',
    sentence:
      'The parameters are included in the entity-body of the HTTP response using the "application/json" media ' +
      'type as defined by [RFC4627].',
    nearest: 'rfc-metadata-octet-stream: the metadata’s media type; here the token answer’s, and its body too',
  },
  // ── Identifiers (RFC 9562) and the webhook sender ──
  {
    id: 'rfc2-hook-id-uuid-variant',
    class: 'the variant bits of a UUID v4',
    description:
      'Hook ids come from a hand-written generator that fills "xxxxxxxx-xxxx-4xxx-xxxx-xxxxxxxxxxxx" with random ' +
      'hex digits: the version digit is 4 but the variant digit is any (here never 8, 9, a or b).',
    breaks: 'Path parameter `id`: UUID v4, the id returned by POST /hooks.',
    standard: 'RFC 9562 §5.4',
    sentence: 'The 2-bit variant field as defined by Section 4.1, set to 0b10.',
    nearest: 'ph-hook-id-uuid-v7: another version; here version 4 with the variant of no UUID of RFC 9562',
  },
  {
    id: 'rfc2-webhook-te-without-connection',
    class: 'a hop-by-hop request field without its connection option',
    description:
      'Deliveries carry "TE: trailers" (copied from a gRPC client’s headers) with no Connection header naming TE.',
    breaks: EVENTS,
    standard: 'RFC 9110 §10.1.4',
    sentence:
      'A sender of TE MUST also send a "TE" connection option within the Connection header field (Section 7.6.1) ' +
      'to inform intermediaries not to forward this field.',
    nearest: 'rfc-webhook-content-type-twice, rfc-webhook-host-without-port: other fields of the delivery',
  },
] as const satisfies readonly RfcPostHocFault[];

export type Rfc2PostHocFaultId = (typeof rfc2PostHocFaults)[number]['id'];

export const rfc2PostHocFaultIds: readonly Rfc2PostHocFaultId[] = rfc2PostHocFaults.map((fault) => fault.id);
