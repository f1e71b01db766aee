/**
 * A second held-out set of post-hoc faults, written from the MUST-level
 * requirements of the standards the spec stands on rather than from the spec's own sentences:
 * RFC 9110 and RFC 9112 (the spec's "JSON REST API" is HTTP), RFC 8259 (its JSON), RFC 6749
 * and RFC 6750 (its OAuth 2.0 `client_credentials` and bearer tokens), RFC 8414 (its discovery
 * metadata), RFC 3339 (its date-times), and the webhook sender, an HTTP client with the client's
 * MUSTs. Each is a plausible slip of a real implementer (a framework default, a hand-written
 * header, a shortcut), visible to an HTTP client or to the webhook receiver, of a class that
 * neither ./post-hoc-faults.ts, ./faults.ts nor operators/ covers (`nearest`).
 *
 * `standard` names the section, `sentence` quotes it word for word (checked against the RFC
 * text), `breaks` is the spec sentence that imports the standard (a substring of the spec).
 * Like the first set, these are apart from the self-proof catalogue, switched on the same way
 * (`occ reference --faults rfc-…`, OCC_REFERENCE_FAULTS, the control API) and implemented in
 * ./post-hoc-slips-rfc.ts; `npm run bench:post-hoc -- --set rfc` measures them.
 *
 * Data only, no imports but a type: ./faults.ts reads the ids from here.
 */
import type { PostHocFault } from './post-hoc-faults.ts';

export interface RfcPostHocFault extends PostHocFault {
  /** The standard and section whose requirement the slip breaks, e.g. 'RFC 9110 §15.5.6'. */
  readonly standard: string;
  /** The standard's sentence, word for word. */
  readonly sentence: string;
}

const REST = 'exposed as a JSON REST API with webhooks';
const ALL_JSON = 'All requests and responses are JSON';
const BEARER = 'Every endpoint requires `Authorization: Bearer <ACCESS_TOKEN>`.';
const OAUTH = 'a short-lived token obtained by OAuth 2.0 `client_credentials` from {auth_url}/oauth/token';
const METADATA = 'discovery metadata is at {auth_url}/.well-known/oauth-authorization-server';
const EVENTS = 'Events are delivered by HTTP POST with a JSON body';
const GRAMMAR =
  'A sender MUST NOT generate protocol elements that do not match the grammar defined by the corresponding ABNF rules.';
const PARSER = 'A JSON parser MUST accept all texts that conform to the JSON grammar.';
const BOM =
  'Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted ' + 'JSON text.';
const BEARER_METHOD = 'Resource servers MUST support this method.';

export const rfcPostHocFaults = [
  // ── HTTP semantics and message syntax (RFC 9110, RFC 9112) ──
  {
    id: 'rfc-405-without-allow',
    class: 'a header a status requires (Allow on 405)',
    description:
      'A 405 answer carries no Allow header (a hand-written 405 handler that only sets the status and ' + 'body).',
    breaks: REST,
    standard: 'RFC 9110 §15.5.6',
    sentence:
      'The origin server MUST generate an Allow header field in a 405 response containing a list of the target ' +
      "resource's currently supported methods.",
    nearest: 'nm-undeclared-method-html (NM-UNDECLARED-METHOD): the body of a 405; here its Allow header',
  },
  {
    id: 'rfc-head-refused',
    class: 'a method every server must support (HEAD)',
    description:
      'HEAD on the GET resources (/v1/me, /v1/balance, …, the metadata) answers 405 with Allow: GET (a router ' +
      'that registers GET only).',
    breaks: REST,
    standard: 'RFC 9110 §9.1',
    sentence: 'All general-purpose servers MUST support the methods GET and HEAD.',
    nearest: 'NM-UNDECLARED-METHOD: methods a path does not declare are refused; here a method it must take is refused',
  },
  {
    id: 'rfc-head-content-length-zero',
    class: 'Content-Length of a HEAD answer',
    description:
      'HEAD answers carry Content-Length: 0 (a hand-written HEAD handler that sends nothing) instead of the GET ' +
      "answer's length.",
    breaks: REST,
    standard: 'RFC 9110 §8.6',
    sentence:
      'a server MUST NOT send Content-Length in such a response unless its field value equals the decimal number of ' +
      'octets that would have been sent in the content of a response if the same request had used the GET method.',
    nearest: 'NM-FRAMING: Content-Length against the bytes that follow; after HEAD none follow, the length is GET’s',
  },
  {
    id: 'rfc-204-content-length',
    class: 'Content-Length on a 204',
    description: 'The 204 of DELETE /hooks/{id} carries a hand-written Content-Length: 0 header (no body bytes).',
    breaks: '| DELETE | /hooks/{id} | write:hooks | path parameter id | 204, no body |',
    standard: 'RFC 9110 §8.6',
    sentence:
      'A server MUST NOT send a Content-Length header field in any response with a status code of 1xx ' +
      '(Informational) or 204 (No Content).',
    nearest: 'nm-204-with-body (NM-FRAMING): body bytes after a 204; here a header field a 204 must not carry',
  },
  {
    id: 'rfc-date-missing',
    class: 'a response header every answer requires (Date)',
    description: "Answers carry no Date header (the server's sendDate switched off to save a syscall per answer).",
    breaks: REST,
    standard: 'RFC 9110 §6.6.1',
    sentence:
      'An origin server with a clock (as defined in Section 5.6.7) MUST generate a Date header field in all 2xx ' +
      '(Successful), 3xx (Redirection), and 4xx (Client Error) responses, and MAY generate a Date header field in ' +
      '1xx (Informational) and 5xx (Server Error) responses.',
    nearest: 'ph-oauth-no-store-missing: a header of the token answer only; here a header of every answer',
  },
  {
    id: 'rfc-chunked-with-content-length',
    class: 'two framings in one answer (chunked and Content-Length)',
    description:
      'GET /cdrs answers are streamed with Transfer-Encoding: chunked while the framework still sets Content-Length.',
    breaks: REST,
    standard: 'RFC 9112 §6.2',
    sentence:
      'A sender MUST NOT send a Content-Length header field in any message that contains a Transfer-Encoding header ' +
      'field.',
    nearest: 'NM-FRAMING: a Content-Length that disagrees with the bytes; here both framings are sent',
  },
  {
    id: 'rfc-absolute-form-404',
    class: 'request-target in absolute form',
    description:
      'A request whose target is in absolute form (GET http://host/v1/me) is answered 404 not_found: a guard ' +
      'that reads the raw target and expects it to start with "/".',
    breaks: REST,
    standard: 'RFC 9112 §3.2.2',
    sentence:
      'A server MUST accept the absolute-form in requests even though most HTTP/1.1 clients will only send the ' +
      'absolute-form to a proxy.',
    nearest: 'NM-UNKNOWN-PATH: paths near a known one; here a known path written in another form',
  },
  {
    id: 'rfc-retry-after-fraction',
    class: 'syntax of a header value (Retry-After)',
    description:
      'The 429 answer says Retry-After in fractional seconds ("0.75", the remaining window divided by 1000, not ' +
      'rounded).',
    breaks: '100 requests per minute per IP by default',
    standard: 'RFC 9110 §2.2, §10.2.3 (delay-seconds = 1*DIGIT)',
    sentence: GRAMMAR,
    nearest: 'rate-limit-* faults and NM-TIME-UNIT: when and how long; here the syntax of the value',
  },
  {
    id: 'rfc-header-name-case-sensitive',
    class: 'field names compared case-sensitively',
    description:
      'The token is read from a header named exactly "Authorization" (a case-sensitive map of the raw header ' +
      'names): "authorization: Bearer <t>", as every HTTP/2 client and many HTTP/1.1 clients send it, is 401.',
    breaks: BEARER,
    standard: 'RFC 9110 §5.1',
    sentence:
      'Field names are case-insensitive and ought to be registered within the "Hypertext Transfer Protocol (HTTP) ' +
      'Field Name Registry"; see Section 16.3.1.',
    nearest: 'NM-TOKEN-OTHER-HEADER: a token read from another header; here the right header under another case',
  },
  // ── JSON (RFC 8259) ──
  {
    id: 'rfc-json-bom',
    class: 'byte order mark before a JSON text',
    description:
      'GET /cdrs answers start with a UTF-8 byte order mark (an export helper that writes one so spreadsheets read ' +
      'UTF-8).',
    breaks: ALL_JSON,
    standard: 'RFC 8259 §8.1',
    sentence: BOM,
    nearest: 'error-html-body / ph-delivery-text-plain: the media type; here the bytes of a JSON answer',
  },
  {
    id: 'rfc-json-infinity',
    class: 'a number JSON cannot represent (Infinity)',
    description:
      'GET /balance writes creditLimit: Infinity for an account without a credit limit (a serialiser that ' +
      'allows NaN and Infinity by default, as Python json.dumps does).',
    breaks: '| creditLimit | number or null | no | null when there is no credit limit |',
    standard: 'RFC 8259 §6',
    sentence:
      'Numeric values that cannot be represented in the grammar below (such as Infinity and NaN) are not ' +
      'permitted.',
    nearest:
      'balance-wrong-type / balance-flags-as-strings: a JSON value of the wrong type; here a text that is ' +
      'not JSON',
  },
  {
    id: 'rfc-json-leading-whitespace-refused',
    class: 'insignificant whitespace around a JSON text',
    description:
      'POST /calls tells a JSON object by its first byte ("{"): a body that begins with whitespace (a pretty-' +
      'printer, a newline) is refused 400 invalid_input as not JSON.',
    breaks: ALL_JSON,
    standard: 'RFC 8259 §9 (and §2: insignificant whitespace is allowed before or after any structural character)',
    sentence: PARSER,
    nearest: 'NM-SURROUNDING-SPACE / NM-TRAILING-NEWLINE: whitespace inside a value; here around the JSON text',
  },
  {
    id: 'rfc-json-escape-refused',
    class: 'escaped characters in a JSON string',
    description:
      'POST /hooks refuses a body holding a \\u escape (a filter against "unicode smuggling"): ' +
      '{"event":"call\\u002eended",…}, the same text as "call.ended", is 400 invalid_input.',
    breaks: ALL_JSON,
    standard: 'RFC 8259 §9 (and §7: any character may be escaped)',
    sentence: PARSER,
    nearest: 'NM-NUL / NM-NON-ASCII-DIGITS: characters of a value; here an escape that spells an ordinary one',
  },
  // ── OAuth 2.0 token endpoint (RFC 6749) and bearer tokens (RFC 6750) ──
  {
    id: 'rfc-oauth-token-type-missing',
    class: 'a REQUIRED member of the token answer',
    description: 'The token answer omits token_type (only access_token, expires_in and scope).',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.1',
    sentence: 'token_type REQUIRED. The type of the token issued as described in Section 7.1.',
    nearest: 'oauth-token-widened / oauth-narrowed-answer-wide-token: the scope of the answer; here a member missing',
  },
  {
    id: 'rfc-oauth-error-code-unregistered',
    class: 'an error code outside the registry (OAuth)',
    description:
      "Failed client authentication is answered 401 with error invalid_credentials (a library's name) instead of " +
      'invalid_client.',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.2',
    sentence:
      'A single ASCII [USASCII] error code from the following: invalid_request The request is missing a required ' +
      'parameter, includes an unsupported parameter value (other than grant type), repeats a parameter, includes ' +
      'multiple credentials, utilizes more than one mechanism for authenticating the client, or is otherwise ' +
      'malformed.',
    nearest: 'ph-expired-token-code: the code of an API 401; here the token endpoint, whose codes RFC 6749 fixes',
  },
  {
    id: 'rfc-oauth-error-description-quotes',
    class: 'characters of an OAuth error_description',
    description:
      'Token-endpoint errors quote the offending value in error_description (grant_type "password" is not ' +
      'supported; client "…" failed to authenticate): a double quote is outside the allowed set.',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.2',
    sentence:
      'Values for the "error_description" parameter MUST NOT include characters outside the set %x20-21 / %x23-5B / ' +
      '%x5D-7E.',
    nearest: 'none of the error-message faults reads the characters of a description',
  },
  {
    id: 'rfc-oauth-basic-401-no-challenge',
    class: 'a challenge a 401 requires (token endpoint)',
    description:
      'A client that authenticated with HTTP Basic and failed gets 401 invalid_client without WWW-Authenticate.',
    breaks: OAUTH,
    standard: 'RFC 6749 §5.2 (and RFC 9110 §15.5.2)',
    sentence:
      'If the client attempted to authenticate via the "Authorization" request header field, the authorization ' +
      'server MUST respond with an HTTP 401 (Unauthorized) status code and include the "WWW-Authenticate" response ' +
      'header field matching the authentication scheme used by the client.',
    nearest: 'ph-oauth-no-store-missing: Cache-Control of the success; here the challenge of the failure',
  },
  {
    id: 'rfc-oauth-unknown-parameter-refused',
    class: 'an unrecognised request parameter refused',
    description:
      'The token endpoint validates the form against a closed schema: a request with a parameter it does not ' +
      'know (audience=…, resource=…) is refused 400 invalid_request.',
    breaks: OAUTH,
    standard: 'RFC 6749 §3.2',
    sentence: 'The authorization server MUST ignore unrecognized request parameters.',
    nearest: 'nm-secret-given-twice: a parameter given twice; here a parameter the server does not know',
  },
  {
    id: 'rfc-oauth-basic-unsupported',
    class: 'a client authentication method every server must support',
    description:
      'The token endpoint reads client_id and client_secret from the body only: a client authenticating with ' +
      'HTTP Basic (client_secret_basic, which the metadata advertises) gets 401 invalid_client.',
    breaks: OAUTH,
    standard: 'RFC 6749 §2.3.1',
    sentence:
      'The authorization server MUST support the HTTP Basic authentication scheme for authenticating clients that ' +
      'were issued a client password.',
    nearest: 'oauth-bad-secret-accepted: a wrong secret accepted; here right credentials refused for their method',
  },
  {
    id: 'rfc-bearer-extra-space-refused',
    class: 'credentials syntax (1*SP) read as one space',
    description: 'The token is read as the second word of header.split(" "): "Bearer  <t>" (two spaces, valid) is 401.',
    breaks: BEARER,
    standard: 'RFC 6750 §2.1 (credentials = "Bearer" 1*SP b64token)',
    sentence: BEARER_METHOD,
    nearest: 'NM-TOKEN-OTHER-SCHEME / auth-any-scheme-accepted: forms that must be refused; here a valid form refused',
  },
  {
    id: 'rfc-bearer-scheme-case-sensitive',
    class: 'authentication scheme compared case-sensitively',
    description: 'Only "Bearer" is taken: "bearer <t>" or "BEARER <t>" is 401 (a startsWith("Bearer ") check).',
    breaks: BEARER,
    standard: 'RFC 6750 §2.1 (ABNF strings are case-insensitive), RFC 9110 §11.1',
    sentence: BEARER_METHOD,
    nearest: 'hooks-target-scheme-case-sensitive: the scheme of a URI in a body; here the authentication scheme',
  },
  // ── The webhook sender, an HTTP client ──
  {
    id: 'rfc-webhook-bom',
    class: 'byte order mark before a delivered JSON text',
    description:
      'Deliveries are written with a UTF-8 byte order mark before the JSON (a writer with a BOM by default); the ' +
      'signature covers the bytes sent, BOM included.',
    breaks: EVENTS,
    standard: 'RFC 8259 §8.1',
    sentence: BOM,
    nearest: 'ph-delivery-text-plain / ph-signature-reserialized-body: media type, signed bytes; here the JSON text',
  },
  {
    id: 'rfc-webhook-content-type-twice',
    class: 'a singleton header sent twice (delivery)',
    description:
      'Deliveries carry two Content-Type field lines ("content-type: application/json" and "Content-Type: ' +
      'application/json; charset=utf-8"): default headers merged with per-request ones under another case.',
    breaks: EVENTS,
    standard: 'RFC 9110 §5.3',
    sentence:
      'This means that, aside from the well-known exception noted below, a sender MUST NOT generate multiple field ' +
      'lines with the same name in a message (whether in the headers or trailers) or append a field line when a ' +
      "field line of the same name already exists in the message, unless that field's definition allows multiple " +
      "field line values to be recombined as a comma-separated list (i.e., at least one alternative of the field's " +
      'definition allows a comma-separated list, such as an ABNF rule of #(values) defined in Section 5.6.1).',
    nearest: 'ph-delivery-text-plain: the one Content-Type is wrong; here two of them',
  },
  {
    id: 'rfc-webhook-date-iso',
    class: 'form of an HTTP-date (delivery)',
    description: 'Deliveries carry a Date header written with toISOString() ("2026-01-01T10:00:00.000Z").',
    breaks: EVENTS,
    standard: 'RFC 9110 §5.6.7',
    sentence:
      'When a sender generates a field that contains one or more timestamps defined as HTTP-date, the sender MUST ' +
      'generate those timestamps in the IMF-fixdate format.',
    nearest: 'ph-signature-ms-timestamp: the unit of the signature timestamp; here the form of an HTTP date',
  },
  {
    id: 'rfc-webhook-host-without-port',
    class: 'Host of a delivery (authority without its port)',
    description:
      "Deliveries set Host from the target's hostname, not its host: a target on a port other than 443 gets " +
      'Host without the port.',
    breaks: EVENTS,
    standard: 'RFC 9112 §3.2',
    sentence:
      'If the target URI includes an authority component, then a client MUST send a field value for Host that is ' +
      'identical to that authority component, excluding any userinfo subcomponent and its "@" delimiter (Section ' +
      '4.2 of [HTTP]).',
    nearest: 'signature-wrong-key / ph-* delivery faults: body, signature, acknowledgement; none reads the Host',
  },
  // ── Metadata (RFC 8414), date-times (RFC 3339) ──
  {
    id: 'rfc-metadata-issuer-trailing-slash',
    class: 'issuer of the metadata not identical to the one asked',
    description:
      'The metadata says issuer "{auth_url}/" (a URL normaliser that adds a slash) while it is served from ' +
      '{auth_url}/.well-known/oauth-authorization-server.',
    breaks: METADATA,
    standard: 'RFC 8414 §3.3',
    sentence:
      'The "issuer" value returned MUST be identical to the authorization server\'s issuer identifier value into ' +
      'which the well-known URI string was inserted to create the URL used to retrieve the metadata.',
    nearest: 'oauth-metadata-token-endpoint-elsewhere: the token_endpoint member; here the issuer',
  },
  {
    id: 'rfc-metadata-octet-stream',
    class: 'media type of the metadata',
    description:
      'The metadata is served as application/octet-stream (a static file without an extension), the same JSON bytes.',
    breaks: METADATA,
    standard: 'RFC 8414 §3.2',
    sentence:
      'A successful response MUST use the 200 OK HTTP status code and return a JSON object using the ' +
      '"application/json" content type that contains a set of metadata values as its members that are a subset ' +
      'of the metadata values defined in Section 2.',
    nearest: 'error-html-body / nm-unknown-path-text: the media type of API errors; here of the metadata',
  },
  {
    id: 'rfc-cdr-offset-without-colon',
    class: 'form of a numeric offset in a date-time',
    description:
      'CDR startTime is written with strftime("%z"): "2026-01-01T10:00:00.000+0000", an offset without its colon.',
    breaks: '| startTime | string, ISO 8601 date-time | |',
    standard: 'RFC 3339 §5.6',
    sentence: 'time-numoffset  = ("+" / "-") time-hour ":" time-minute',
    nearest: 'ph-agents-created-at-naive: no offset at all (agents); here an offset in a form RFC 3339 does not have',
  },
] as const satisfies readonly RfcPostHocFault[];

export type RfcPostHocFaultId = (typeof rfcPostHocFaults)[number]['id'];

export const rfcPostHocFaultIds: readonly RfcPostHocFaultId[] = rfcPostHocFaults.map((fault) => fault.id);
