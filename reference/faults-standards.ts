/**
 * Faults of the self-proof catalogue that break a MUST of a standard the spec stands on, one per
 * rule of the protocol lint (contract/standards/; docs/standards.md): each a plausible slip of
 * framework or hand-written HTTP, caught by the lint's verdicts (suites/standards.judge.suite.ts).
 * Implemented in ./faults/standards.ts on the `wire` point (./wire.ts) or a route's point. Data
 * only: ./faults.ts spreads it into the catalogue, which checks its shape.
 */
export const standardsFaults = [
  {
    id: 'std-401-no-challenge',
    description: 'A 401 of the API carries no WWW-Authenticate: the error body is thought to say enough.',
    violates: ['STD-HTTP-AUTH-CHALLENGE'],
  },
  {
    id: 'std-challenge-quoted-description',
    description:
      'The Bearer challenge carries the error message as error_description, quotes and all ' +
      '(error_description="the token \\"oc_…\\" is unknown"), outside the characters RFC 6750 §3 allows.',
    violates: ['STD-HTTP-AUTH-CHALLENGE'],
  },
  {
    id: 'std-405-no-allow',
    description: 'A 405 carries no Allow header (the methods are named in the message only).',
    violates: ['STD-HTTP-ALLOW-405'],
  },
  {
    id: 'std-allow-space-separated',
    description: 'Allow lists the methods separated by spaces ("GET HEAD"), not as the comma list RFC 9110 defines.',
    violates: ['STD-HTTP-FIELD-SYNTAX'],
  },
  {
    id: 'std-no-date',
    description: "Answers carry no Date: the server's automatic Date is switched off to save bytes.",
    violates: ['STD-HTTP-DATE'],
  },
  {
    id: 'std-date-iso',
    description: 'Date is written by hand as an ISO 8601 timestamp ("2026-11-28T23:00:00.000Z"), not an IMF-fixdate.',
    violates: ['STD-HTTP-DATE'],
  },
  {
    id: 'std-last-modified-ahead',
    description:
      "Every 200 answer carries Last-Modified set to the cache entry's expiry, an hour after the answer's Date.",
    violates: ['STD-HTTP-DATE'],
  },
  {
    id: 'std-content-type-twice',
    description:
      'JSON answers carry Content-Type on two field lines (the framework\'s and a hand-set "application/json"), ' +
      'a singleton field sent twice.',
    violates: ['STD-HTTP-FIELD-SYNTAX'],
  },
  {
    id: 'std-length-on-204',
    description: 'A 204 (DELETE /hooks/{id}) carries Content-Length: 0, which RFC 9110 §8.6 forbids on a 204.',
    violates: ['STD-HTTP-MESSAGE-FRAMING'],
  },
  {
    id: 'std-chunked-204',
    description: 'A 204 carries Transfer-Encoding: chunked (a streaming writer opened before the status was known).',
    violates: ['STD-HTTP-MESSAGE-FRAMING'],
  },
  {
    id: 'std-json-bom',
    description: 'JSON answers begin with a UTF-8 byte order mark (a serializer writing "UTF-8 with BOM").',
    violates: ['STD-JSON-TEXT'],
  },
  {
    id: 'std-delivery-bom',
    description: 'Delivery bodies begin with a UTF-8 byte order mark, signed as sent.',
    violates: ['STD-JSON-TEXT'],
  },
  {
    id: 'std-token-expires-in-string',
    description:
      'The token answer gives expires_in as a JSON string ("3600"), not the JSON number RFC 6749 §5.1 requires.',
    violates: ['STD-OAUTH-TOKEN-ANSWER'],
  },
  {
    id: 'std-token-error-code-unregistered',
    description:
      'A wrong client secret is refused 401 with error "invalid_client_secret", a code RFC 6749 §5.2 does not define.',
    violates: ['STD-OAUTH-ERROR-ANSWER'],
  },
  {
    id: 'std-token-error-description-quotes',
    description:
      'Token refusals quote the offending value in error_description (client "client_x" is unknown), a character ' +
      'RFC 6749 §5.2 excludes.',
    violates: ['STD-OAUTH-ERROR-ANSWER'],
  },
  {
    id: 'std-host-lines-unchecked',
    description:
      'Two Host lines, or a Host that is no uri-host [":" port], are taken (the first line read) instead of ' +
      'refused 400 (RFC 9112 §3.2).',
    violates: ['STD-HTTP-HOST'],
  },
  {
    id: 'std-continue-to-http10',
    description:
      'Every API answer is preceded by an interim "100 Continue", to an HTTP/1.0 client too (RFC 9110 §15.2).',
    violates: ['STD-HTTP-VERSION'],
  },
  {
    id: 'std-chunked-to-http10',
    description:
      'GET /agents is sent chunked with a Server-Timing trailer, to an HTTP/1.0 request too (RFC 9112 §6.1).',
    violates: ['STD-HTTP-VERSION'],
  },
  {
    id: 'std-absolute-form-404',
    description: 'A request whose target is the whole URL (absolute-form) finds no route: 404 (RFC 9112 §3.2.2).',
    violates: ['STD-HTTP-REQUEST-TARGET'],
  },
  {
    id: 'std-keep-alive-forced',
    description:
      'Every API answer says "Connection: keep-alive" and the connection stays open after a request that said ' +
      '"close" (RFC 9112 §9.6).',
    violates: ['STD-HTTP-CLOSE'],
  },
  {
    id: 'std-delivery-te-alone',
    description:
      'Deliveries carry "TE: trailers" (header lines copied from an HTTP/2 client) with no Connection naming TE ' +
      '(RFC 9110 §10.1.4).',
    violates: ['STD-WEBHOOK-HTTP-CLIENT'],
  },
  {
    id: 'std-head-length-zero',
    description:
      'A HEAD answer carries Content-Length: 0, the length of what it sent, not of what GET would have sent ' +
      '(RFC 9110 §8.6).',
    violates: ['STD-REL-HEAD'],
  },
  {
    id: 'std-token-401-no-challenge',
    description:
      'A 401 invalid_client of the token endpoint carries no WWW-Authenticate, even when the client used HTTP Basic.',
    violates: ['STD-HTTP-AUTH-CHALLENGE'],
  },
] as const;
