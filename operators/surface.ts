/**
 * Near misses of the surface: every path of the document with every method it does not declare
 * (HEAD, OPTIONS, TRACE and a method no standard defines among them), and an unknown sibling and
 * child of every path. The status is the target's choice among HTTP's readings (404, 405, 501, a
 * HEAD answered like GET, an OPTIONS answered 200 or 204 with Allow); any body it carries is JSON,
 * an error body has a string `error`, and a HEAD answer has no body. Pure.
 */
import { DECLARABLE_METHODS, elementsOf, type Document } from './document.ts';
import { exemplar } from './exemplar.ts';
import type { Expectation } from './expectation.ts';
import { rankedBy, type OperatorInfo } from './operator.ts';

export interface SurfaceProbe {
  readonly operator: string;
  readonly method: string;
  /** A concrete path below the base URL, path parameters filled with valid values. */
  readonly path: string;
  /** The template it comes from. */
  readonly template: string;
  readonly what: string;
  readonly expect: Expectation;
}

/** A method no standard defines: what a server's own method table must still answer in JSON. */
export const NON_STANDARD_METHOD = 'FOO';

/** Ranked likeliest slip first: the framework's default answers to OPTIONS, HEAD and PUT are the usual HTML. */
const METHODS = ['OPTIONS', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE', 'GET', 'TRACE', NON_STANDARD_METHOD];

export const surfaceOperators: readonly OperatorInfo[] = [
  {
    id: 'NM-UNDECLARED-METHOD',
    family: 'surface',
    appliesTo: `every path × each of ${METHODS.join(', ')} it does not declare`,
    verdict:
      'any status HTTP allows; a body is JSON (an error body with a string `error`); HEAD carries no body; ' +
      'OPTIONS may answer 200/204 without one',
    because: 'What the service does: "All requests and responses are JSON"; Errors: "a JSON body with `error`"',
  },
  {
    id: 'NM-UNKNOWN-PATH',
    family: 'surface',
    appliesTo: 'every path: a sibling (its last segment with a suffix) and a child (one segment more)',
    verdict: 'any status HTTP allows (404, 401, a new endpoint); a body is JSON, an error body with a string `error`',
    because: 'What the service does: "All paths are under {base_url}" and "All requests and responses are JSON"',
  },
];

/** The path with each {parameter} replaced by a valid value of its schema (or "1"). */
export function concretePath(doc: Document, template: string): string {
  const params = elementsOf(doc).filter((e) => e.location === 'path' && e.operation.path === template);
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const element = params.find((p) => p.name === name);
    return encodeURIComponent((element && exemplar(element.schema)) ?? '1');
  });
}

/** The segment an unknown child path adds. */
const UNKNOWN_CHILD = '/nm-unknown';

const bodyRule = (method: string): Expectation => ({ kind: 'json-if-body', method });

/** Every surface probe of `doc`. */
export function surfaceProbes(doc: Document): SurfaceProbe[] {
  return Object.entries(doc.paths).flatMap(([template, item]) => {
    const path = concretePath(doc, template);
    const declared = DECLARABLE_METHODS.filter((m) => item[m] !== undefined).map((m) => m.toUpperCase());
    const methods = METHODS.filter((m) => !declared.includes(m));
    const first = declared[0] ?? 'GET';
    return [
      ...methods.map((method) => ({
        operator: 'NM-UNDECLARED-METHOD',
        method,
        path,
        template,
        what: `${method} ${template}`,
        expect: bodyRule(method),
      })),
      {
        operator: 'NM-UNKNOWN-PATH',
        method: first,
        path: `${path}-nm`,
        template,
        what: `${first} ${template}-nm (an unknown sibling)`,
        expect: bodyRule(first),
      },
      {
        operator: 'NM-UNKNOWN-PATH',
        method: first,
        path: `${path}${UNKNOWN_CHILD}`,
        template,
        what: `${first} ${template}/nm-unknown (an unknown child)`,
        expect: bodyRule(first),
      },
    ];
  });
}

/**
 * The surface probes ranked likeliest slip first, for the request budget: OPTIONS (CORS middleware
 * answering it in text or HTML), then a child path no route matches (a router's default 404 page:
 * Express's "Cannot GET", a proxy's HTML), then HEAD (an automatic HEAD sending the GET body), then
 * the methods a router refuses with its own 405 page (PUT, PATCH, POST, DELETE, GET), TRACE and a
 * method no standard names (answered by the server before the framework), and last an unknown
 * sibling path (the same 404 handler as the child, so it adds least); each on every path, in the
 * document's order.
 */
const SURFACE_RANK = [
  'OPTIONS',
  'child',
  'HEAD',
  'PUT',
  'PATCH',
  'POST',
  'DELETE',
  'GET',
  'TRACE',
  NON_STANDARD_METHOD,
  'sibling',
];

export function rankSurface(probes: readonly SurfaceProbe[]): SurfaceProbe[] {
  const templates = [...new Set(probes.map((p) => p.template))];
  const variant = (p: SurfaceProbe) =>
    p.operator === 'NM-UNKNOWN-PATH' ? (p.path.endsWith(UNKNOWN_CHILD) ? 'child' : 'sibling') : p.method;
  return rankedBy(probes, (p) => [SURFACE_RANK.indexOf(variant(p)), templates.indexOf(p.template)]);
}
