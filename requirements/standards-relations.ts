/**
 * Requirements read from the standards the contract stands on (HTTP, Bearer, media types, JSON,
 * URIs, OAuth 2.0) rather than from the spec's own sentences: the equivalence relations, the
 * ambiguous and absent inputs, and the two principals of docs/relations.md. Data only; spread
 * into ./catalogue.ts's `requirements` list. MUST where the standard says MUST (or states an
 * equivalence as a fact); OBSERVE where it says SHOULD or MAY.
 */
export const standardsRelations = [
  // ── Equivalence relations (docs/relations.md) ──
  {
    id: 'STD-REL-FIELD-NAME-CASE',
    section: 'Authentication (RFC 9110 §5.1)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A header field name in any case is the same field (RFC 9110 §5.1: "Field names are case-insensitive"): ' +
      'AUTHORIZATION and content-TYPE get the answer of Authorization and Content-Type.',
  },
  {
    id: 'STD-REL-FIELD-VALUE-OWS',
    section: 'Authentication (RFC 9110 §5.5)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Whitespace before or after a field value is not part of it (RFC 9110 §5.5: "a field value does not ' +
      'include leading or trailing whitespace").',
  },
  {
    id: 'STD-REL-AUTH-SCHEME-CASE',
    section: 'Authentication (RFC 9110 §11.1)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'The authentication scheme is matched case-insensitively (RFC 9110 §11.1: "a case-insensitive token to ' +
      'identify the authentication scheme"): `bearer` and `BEARER` are Bearer.',
  },
  {
    id: 'STD-REL-AUTH-SPACES',
    section: 'Authentication (RFC 9110 §11.4, RFC 6750 §2.1)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'One or more spaces separate the scheme from the token (RFC 9110 §11.4 `auth-scheme [ 1*SP ( token68 / ' +
      '#auth-param ) ]`; RFC 6750 §2.1 `"Bearer" 1*SP b64token`): two spaces are the same credentials.',
  },
  {
    id: 'STD-REL-MEDIA-TYPE',
    section: 'What the service does (RFC 9110 §8.3.1, RFC 8259 §11)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'The media type of a JSON body is matched case-insensitively with its parameters allowed (RFC 9110 ' +
      '§8.3.1: "The type and subtype tokens are case-insensitive", "The parameter name token is ' +
      'case-insensitive"; RFC 8259 §11: a charset "really has no effect on compliant recipients").',
  },
  {
    id: 'STD-REL-JSON-TEXT',
    section: 'What the service does (RFC 8259 §2, §4, §7)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A JSON body means its value, not its spelling: insignificant whitespace (§2), member order (§4: ' +
      'objects are unordered) and escapes (§7: "\\u0063" is "c", "\\/" is "/") change nothing.',
  },
  {
    id: 'STD-REL-PERCENT-ENCODING',
    section: 'Endpoints (RFC 3986 §2.3, §6.2.2.1, §6.2.2.2)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A percent-encoded unreserved character is that character, in the path and in the query (RFC 3986 §2.3: ' +
      '"URIs that differ in the replacement of an unreserved character with its corresponding percent-encoded ' +
      'US-ASCII octet are equivalent"), its hex digits in either case (§6.2.2.1).',
  },
  {
    id: 'STD-REL-RESERVED-DIFFERENT',
    section: 'Endpoints (RFC 3986 §2.2)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A percent-encoded reserved character is data, never the delimiter (RFC 3986 §2.2: URIs that differ in ' +
      'the replacement of a reserved character with its percent-encoding "are not equivalent"): /me%3F is not /me.',
  },
  {
    id: 'STD-REL-HEAD',
    section: 'Endpoints (RFC 9110 §9.1, §9.3.2)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'HEAD on every GET operation gets the status GET gets and no content (RFC 9110 §9.3.2: "identical to GET ' +
      'except that the server MUST NOT send content"; §9.1: "All general-purpose servers MUST support the ' +
      'methods GET and HEAD").',
  },
  {
    id: 'STD-REL-ACCEPT-ANY',
    section: 'Endpoints (RFC 9110 §12.5.1, RFC 6749 §5.1)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Every operation and the token endpoint answer a request accepting any media type (`Accept: */*`, as curl ' +
      'sends) as they answer one accepting application/json, in the same media type: the contract has one, JSON ' +
      '("All requests and responses are JSON"; RFC 6749 §5.1: the token answer uses "the application/json media ' +
      'type").',
  },
  {
    id: 'STD-REL-PRECONDITION',
    section: 'Authentication (RFC 9110 §13.2.1)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A request every operation refuses (no token: 401) gets the same refusal with a precondition added that ' +
      'a current representation makes false (If-None-Match: *, If-Match, If-Unmodified-Since): RFC 9110 ' +
      '§13.2.1, "A server MUST ignore all received preconditions if its response to the same request without ' +
      'those conditions, prior to processing the request content, would have been a status code other than ' +
      'a 2xx (Successful) or 412 (Precondition Failed)".',
  },
  {
    id: 'STD-REL-OAUTH-FORM',
    section: 'Authentication (RFC 6749 §3.1, §3.2)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'At the token endpoint a parameter sent without a value is as if omitted (RFC 6749 §3.1: "Parameters sent ' +
      'without a value MUST be treated as if they were omitted from the request"), a parameter it does not know ' +
      'is ignored (§3.2: "The authorization server MUST ignore unrecognized request parameters"), and the order ' +
      "of the form's parameters changes nothing.",
  },
  {
    id: 'STD-REL-URI-SCHEME-CASE',
    section: 'Endpoints › POST /hooks (RFC 3986 §3.1)',
    level: 'OBSERVE',
    checks: ['suite'],
    text:
      'A target_url whose scheme is written HTTPS: RFC 3986 §3.1 says an implementation "should accept ' +
      'uppercase letters as equivalent to lowercase in scheme names": accepting or refusing it is recorded.',
  },
  // ── Ambiguity and absence ──
  {
    id: 'STD-AMBIG-QUERY-TWICE',
    section: 'Endpoints › GET /cdrs',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A query parameter given twice is refused with a documented code, or answered as one of its single ' +
      'values (or as the parameter omitted) would be: never with a value the target did not validate.',
  },
  {
    id: 'STD-AMBIG-JSON-MEMBER-TWICE',
    section: 'What the service does (RFC 8259 §4)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A JSON member given twice (RFC 8259 §4: "the behavior of software that receives such an object is ' +
      'unpredictable") is refused with a documented status and code, or answered as one of its single values.',
  },
  {
    id: 'STD-AMBIG-HEADER-TWICE',
    section: 'Authentication (RFC 9110 §5.3)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Two Authorization lines (RFC 9110 §5.3: a sender "MUST NOT generate multiple field lines with the same ' +
      'name" unless the field is a list) are refused, or answered as one of the two alone: never as a mix.',
  },
  {
    id: 'STD-AMBIG-EMPTY-VALUE',
    section: 'Endpoints',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A field given an empty, zero, false or null value is refused with a documented status and code, or ' +
      'answered as a request the target validated (the field omitted, or that value accepted).',
  },
  {
    id: 'STD-AMBIG-EMPTY-READING',
    section: 'Endpoints',
    level: 'OBSERVE',
    checks: ['suite'],
    text: 'Which reading the target takes of a repeated or empty input (refused, the first, the last, omitted).',
  },
  {
    id: 'STD-AMBIG-OAUTH-REPEATED',
    section: 'Authentication (RFC 6749 §3.1, §5.2)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A token request repeating a parameter is refused 400 invalid_request (RFC 6749 §3.1: "Request and ' +
      'response parameters MUST NOT be included more than once"; §5.2 invalid_request: "repeats a parameter").',
  },
  {
    id: 'STD-AMBIG-OAUTH-TWO-METHODS',
    section: 'Authentication (RFC 6749 §2.3, §5.2)',
    level: 'MUST',
    checks: ['suite'],
    text:
      'A token request authenticating the client two ways, HTTP Basic with a wrong secret and the right id and ' +
      'secret in the body, is refused, never answered with a token (RFC 6749 §2.3: "The client MUST NOT use more ' +
      'than one authentication method in each request"; §5.2 invalid_request: "utilizes more than one mechanism ' +
      'for authenticating the client").',
  },
  // ── Two principals ──
  {
    id: 'STD-PRINCIPALS-NO-MIX',
    section: 'Authentication',
    level: 'MUST',
    checks: ['suite'],
    text:
      'Every read answered to two principals (two accounts, two scope sets of one account) at the same moment ' +
      "or in quick alternation equals each principal's own answer (live fields apart): caches keyed by the " +
      'token, never by the URL alone.',
  },
] as const; // checked as Requirement entries where ./catalogue.ts spreads it (an import back would be a cycle)
