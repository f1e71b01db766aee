/**
 * What every HTTP/1.1 server must do with a request's Host, its target's form, its protocol version
 * and its "close" option, whatever the operation (RFC 9112 §3.2, §6.1, §9.6; RFC 9110 §15.2): no client library
 * sends two Host lines or an HTTP/1.0 request, and none shows a 1xx it skipped or a connection it
 * left open, so each probe goes on a socket of its own (harness/http/raw.ts) and is read off its
 * bytes (contract/standards/wire-answers.ts). Derived from openapi.json: the version rules apply
 * to every GET operation without path parameters (each answer's framing is its route's), the
 * server-wide rules (Host, absolute-form, close) to the first of them secured by a bearer scheme. Pure.
 */
import type { WireAnswers } from '../contract/standards/wire-answers.ts';
import { operationsOf, type Document } from './document.ts';
import { readsBearer } from './equivalences.ts';

/** How the probe's request goes on the wire. */
export interface ConnectionSend {
  readonly version: '1.0' | '1.1';
  /** The Host lines: the URL's authority once, none, twice, or once with a value no uri-host has. */
  readonly hosts: 'authority' | 'none' | 'twice' | 'invalid';
  /** Whether, the answer whole and the connection still open, the request is written again on it. */
  readonly askAgain: boolean;
  /** Whether the request-target is the whole URL (absolute-form) rather than the path (origin-form). */
  readonly absoluteForm?: boolean;
}

export interface ConnectionProbe {
  /** Stable id, e.g. WIRE-HOST-TWICE. */
  readonly id: string;
  readonly section: string;
  /** The standard's sentence, quoted. */
  readonly quote: string;
  /** "GET /me". */
  readonly operation: string;
  readonly what: string;
  readonly send: ConnectionSend;
  /** Why the answers break the rule, or undefined; called with at least one final answer. */
  readonly judge: (answers: WireAnswers) => string | undefined;
}

const HOST_400 =
  'A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request message that lacks a Host ' +
  'header field and to any request message that contains more than one Host header field line or a Host header ' +
  'field with an invalid field value.';
const NO_TE_TO_10 =
  'A server MUST NOT send a response containing Transfer-Encoding unless the corresponding request indicates ' +
  'HTTP/1.1 (or later minor revisions).';
const NO_1XX_TO_10 = 'a server MUST NOT send a 1xx response to an HTTP/1.0 client.';
const CLOSE =
  'A server that receives a "close" connection option MUST initiate closure of the connection (see below) after ' +
  'it sends the final response to the request that contained the "close" connection option.';

const ABSOLUTE =
  'A server MUST accept the absolute-form in requests even though most HTTP/1.1 clients will only send the ' +
  'absolute-form to a proxy.';

const first = (a: WireAnswers) => a.finals[0]!;
const refused400 = (a: WireAnswers) => (first(a).status === 400 ? undefined : `answered ${first(a).status}, not 400`);

/** RFC 9112 §6.1 and RFC 9110 §15.2 on an answer to an HTTP/1.0 request. */
export function http10Problem(a: WireAnswers): string | undefined {
  if (a.interim.length > 0) return `an interim ${a.interim[0]!.status} answer came before the final one`;
  const te = first(a).fields.find(([name]) => name === 'transfer-encoding');
  return te === undefined ? undefined : `the answer carries Transfer-Encoding: ${te[1]}`;
}

/** RFC 9112 §9.6: a second answer on the connection means the server did not close it. */
export function closeProblem(a: WireAnswers): string | undefined {
  return a.finals.length < 2
    ? undefined
    : `the connection stayed open after the answer (${first(a).status}) and answered the request written on it ` +
        `again (${a.finals[1]!.status})`;
}

function hostProbes(operation: string): ConnectionProbe[] {
  const host = (id: string, hosts: ConnectionSend['hosts'], what: string): ConnectionProbe => ({
    id,
    section: 'RFC 9112 §3.2',
    quote: HOST_400,
    operation,
    what,
    send: { version: '1.1', hosts, askAgain: false },
    judge: refused400,
  });
  return [
    host('WIRE-HOST-TWICE', 'twice', 'two Host lines (the same authority)'),
    host('WIRE-HOST-INVALID', 'invalid', 'a Host that is no uri-host [":" port] (the authority and a "/")'),
    host('WIRE-HOST-MISSING', 'none', 'an HTTP/1.1 request without Host'),
  ];
}

/** Every connection probe of `doc`. */
export function connectionProbes(doc: Document): ConnectionProbe[] {
  const gets = operationsOf(doc).filter((o) => o.method === 'GET' && !o.path.includes('{'));
  const secured = gets.find((o) => readsBearer(doc, o));
  const server =
    secured === undefined
      ? []
      : [
          ...hostProbes(secured.key),
          {
            id: 'WIRE-ABSOLUTE-FORM',
            section: 'RFC 9112 §3.2.2',
            quote: ABSOLUTE,
            operation: secured.key,
            what: 'the request-target in absolute-form (the whole URL), the valid token',
            send: { version: '1.1' as const, hosts: 'authority' as const, askAgain: false, absoluteForm: true },
            judge: (a: WireAnswers) =>
              first(a).status >= 200 && first(a).status < 300
                ? undefined
                : `answered ${first(a).status}; the same request in origin-form is a 2xx`,
          },
          {
            id: 'WIRE-CLOSE',
            section: 'RFC 9112 §9.6',
            quote: CLOSE,
            operation: secured.key,
            what: 'Connection: close, then (the connection left open) the same request again',
            send: { version: '1.1' as const, hosts: 'authority' as const, askAgain: true },
            judge: closeProblem,
          },
        ];
  const versions = gets.map(
    (o): ConnectionProbe => ({
      id: 'WIRE-HTTP10',
      section: 'RFC 9112 §6.1, RFC 9110 §15.2',
      quote: `${NO_TE_TO_10} ${NO_1XX_TO_10}`,
      operation: o.key,
      what: 'the request as HTTP/1.0',
      send: { version: '1.0', hosts: 'authority', askAgain: false },
      judge: http10Problem,
    }),
  );
  return [...server, ...versions];
}
