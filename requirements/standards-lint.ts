/**
 * Requirements the spec imports from the standards it stands on ("a JSON REST API", "bearer
 * token", "OAuth 2.0 client_credentials", "Events are delivered by HTTP POST with a JSON body"):
 * the MUSTs of RFC 9110, RFC 9112, RFC 8259, RFC 6749 and RFC 6750 that apply to the API server,
 * its token endpoint and its webhook sender. The protocol lint (contract/standards/) judges every
 * exchange a run makes against them, at no request of its own; docs/standards.md lists each rule
 * with its section and sentence. Data only: ./catalogue.ts spreads it into the catalogue, which
 * checks its shape (no import back, so no cycle).
 */
export const standardsLintRequirements = [
  {
    id: 'STD-HTTP-HOST',
    section: 'Standards › RFC 9112',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A request with two Host lines, a Host that is no uri-host [":" port], or (HTTP/1.1) no Host gets 400 ' +
      '(RFC 9112 §3.2); sent on a socket of its own (operators/connection.ts).',
  },
  {
    id: 'STD-HTTP-REQUEST-TARGET',
    section: 'Standards › RFC 9112',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A request whose target is in absolute-form (the whole URL) is answered as the same request in origin-form ' +
      '(RFC 9112 §3.2.2: "A server MUST accept the absolute-form in requests").',
  },
  {
    id: 'STD-HTTP-VERSION',
    section: 'Standards › RFC 9112, RFC 9110',
    level: 'MUST',
    checks: ['suite'],
    text:
      'The answer to an HTTP/1.0 request of every GET operation carries no Transfer-Encoding (RFC 9112 §6.1) and ' +
      'comes with no interim 1xx answer before it (RFC 9110 §15.2).',
  },
  {
    id: 'STD-HTTP-CLOSE',
    section: 'Standards › RFC 9112',
    level: 'MUST',
    checks: ['suite'],
    text:
      'After the answer to a request carrying "Connection: close" the server closes the connection (RFC 9112 ' +
      '§9.6): left open, the request written on it again gets no answer.',
  },
  {
    id: 'STD-HTTP-AUTH-CHALLENGE',
    section: 'Standards › RFC 9110, RFC 6750, RFC 6749',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Every 401 answer carries a WWW-Authenticate challenge (RFC 9110 §15.5.2): Bearer on the API (RFC 6750 §3), ' +
      'the scheme the client authenticated with on the token endpoint (RFC 6749 §5.2), its attributes well formed.',
  },
  {
    id: 'STD-HTTP-ALLOW-405',
    section: 'Standards › RFC 9110',
    level: 'MUST',
    checks: ['suite'],
    text: 'Every 405 answer carries Allow, naming the methods the resource supports (RFC 9110 §15.5.6).',
  },
  {
    id: 'STD-HTTP-MESSAGE-FRAMING',
    section: 'Standards › RFC 9110, RFC 9112',
    level: 'MUST',
    checks: ['suite'],
    text:
      "An answer's framing agrees with it: no Content-Length or Transfer-Encoding on a 1xx or 204, never both, " +
      "a Content-Length of digits equal to the content's octets (RFC 9110 §8.6, RFC 9112 §6.1-6.3).",
  },
  {
    id: 'STD-HTTP-FIELD-SYNTAX',
    section: 'Standards › RFC 9110',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Fields the target sends hold their grammar, and a singleton field is sent once (RFC 9110 §5.3): ' +
      'Content-Type, Retry-After, Location, ETag, Last-Modified and Allow as RFC 9110 defines them.',
  },
  {
    id: 'STD-HTTP-DATE',
    section: 'Standards › RFC 9110',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A 2xx, 3xx or 4xx answer carries Date (RFC 9110 §6.6.1: an origin server with a clock), and every ' +
      'HTTP-date the target generates is an IMF-fixdate (RFC 9110 §5.6.7).',
  },
  {
    id: 'STD-JSON-TEXT',
    section: 'Standards › RFC 8259',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Every JSON text the target sends, answers and deliveries, is UTF-8 without a byte order mark ' +
      '(RFC 8259 §8.1).',
  },
  {
    id: 'STD-OAUTH-TOKEN-ANSWER',
    section: 'Standards › RFC 6749',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A token answer is a JSON object with access_token (visible ASCII) and token_type, expires_in a number of ' +
      'seconds and scope space-separated scope tokens when present, and Cache-Control: no-store (RFC 6749 §5.1).',
  },
  {
    id: 'STD-OAUTH-ERROR-ANSWER',
    section: 'Standards › RFC 6749',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A refusal of the token endpoint is 400, or 401 for invalid_client, with a JSON object whose error is a ' +
      'code of RFC 6749 §5.2 and whose error and error_description hold only the characters §5.2 allows.',
  },
  {
    id: 'STD-WEBHOOK-HTTP-CLIENT',
    section: 'Standards › RFC 9112, RFC 9110, RFC 8259',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A delivery is a well-formed HTTP/1.1 request: Host present (RFC 9112 §3.2), framing fields that agree ' +
      '(RFC 9112 §6), singleton fields once and a media type in Content-Type (RFC 9110 §5.3, §8.3).',
  },
  {
    id: 'STD-SHOULD-OBSERVED',
    section: 'Standards',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'What the standards recommend (SHOULD) and a target may leave undone is recorded, never failed: ' +
      'the rules of level SHOULD in docs/standards.md.',
  },
] as const;
