/**
 * Near misses of identifiers the target issued (RESTler's invalid dynamic object and namespace
 * rules): every path parameter whose value an operation of the parent path returns (the `id` of
 * POST /hooks, used by DELETE /hooks/{id}) is sent written another way. The same id in upper
 * case names the same resource (RFC 9562: hex digits are case-insensitive on input); one with a
 * character appended is no UUID any more (400); one with a hex digit changed is a UUID naming
 * nothing (404); a sibling's id acts on the sibling only; another account's id is not found (404).
 * Pure.
 */
import { elementsOf, firstStatus, resolve, type Document, type Element, type Schema } from './document.ts';
import type { Refusal } from './expectation.ts';
import { occurrences, rankedBy, type OperatorInfo } from './operator.ts';

/** A path parameter bound to the field of a producing operation's success body. */
export interface Binding {
  /** The consuming parameter, e.g. DELETE /hooks/{id} path id. */
  readonly parameter: Element;
  /** "POST /hooks". */
  readonly producer: string;
  /** The field of its 2xx body holding the id. */
  readonly field: string;
  /** The consumer's success status (204), and its refusals for a malformed and for an unknown id. */
  readonly success: number;
  readonly malformed: readonly Refusal[];
  readonly unknown: readonly Refusal[];
}

/** What a probe expects of the consuming request, and of the issued resource after it. */
export type IdentifierOutcome =
  | { readonly kind: 'acts-on-it' }
  | { readonly kind: 'refused-leaves-it'; readonly answers: readonly Refusal[] };

export interface IdentifierProbe {
  readonly operator: string;
  readonly binding: Binding;
  readonly what: string;
  /** The id to send, from the issued one (and a sibling's or another account's, where it needs one). */
  readonly value: (issued: string, other: string) => string;
  readonly needs: 'issued' | 'sibling' | 'foreign';
  readonly outcome: IdentifierOutcome;
}

export const identifierOperators: readonly OperatorInfo[] = [
  {
    id: 'NM-ID-CASE',
    family: 'identifiers',
    appliesTo: 'every path parameter of format uuid bound to an id the target issued (DELETE /hooks/{id})',
    verdict: 'the issued id in upper case names the same resource: the success status (204), then it is gone',
    because: 'RFC 9562 §4: UUID hex digits "are case insensitive on input"; DELETE /hooks/{id}: "UUID v4"',
  },
  {
    id: 'NM-ID-APPENDED',
    family: 'identifiers',
    appliesTo: 'every path parameter bound to an issued id',
    verdict: 'the issued id with a character appended is refused 400 (not a UUID) and the resource is left as it was',
    because: 'DELETE /hooks/{id}: 400 `invalid_input` when the "id not a UUID"',
  },
  {
    id: 'NM-ID-CHANGED',
    family: 'identifiers',
    appliesTo: 'every path parameter bound to an issued id',
    verdict:
      'one hex digit changed (still a UUID) is 404 `not_found`; the last one made a non-hex letter is 400; the ' +
      'resource is left as it was',
    because: 'DELETE /hooks/{id}: 404 `not_found` when the "hook does not exist"; 400 when the id is not a UUID',
  },
  {
    id: 'NM-ID-SIBLING',
    family: 'identifiers',
    appliesTo: 'every path parameter bound to an issued id: a second resource issued beside it',
    verdict: "the sibling's id acts on the sibling: this one is left as it was",
    because: 'States: DELETE moves the hook it names ("hook exists and belongs to the account") to disabled',
  },
  {
    id: 'NM-ID-FOREIGN',
    family: 'identifiers',
    appliesTo: "every path parameter bound to an issued id: another account's id, as issued and in upper case",
    verdict: "404 `not_found`; the other account's resource is left as it was",
    because: 'DELETE /hooks/{id}: 404 `not_found` when the hook "belongs to another account"',
  },
];

/** The property of a schema that holds an id of the given format ("id" first). */
function idField(schema: Schema, format: string | undefined): string | undefined {
  const entries = Object.entries(schema.properties ?? {});
  const matching = entries.filter(([, s]) => s.format === format);
  return (matching.find(([name]) => name === 'id') ?? matching[0])?.[0];
}

/** Every path parameter an operation of its parent path issues (a POST whose 2xx body carries it). */
export function bindingsOf(doc: Document): Binding[] {
  return elementsOf(doc)
    .filter((e) => e.location === 'path')
    .flatMap((parameter) => {
      const parent = parameter.operation.path.slice(0, parameter.operation.path.lastIndexOf('/{'));
      const producer = doc.paths[parent]?.post as
        | { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }
        | undefined;
      const ok = Object.entries(producer?.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
      const body = resolve(doc, ok?.content?.['application/json']?.schema);
      const field = idField(body, parameter.schema.format);
      const success = firstStatus(parameter.operation, '2');
      if (field === undefined || success === undefined) return [];
      const codes = parameter.operation.errorCodes;
      return [
        {
          parameter,
          producer: `POST ${parent}`,
          field,
          success,
          malformed: [{ status: 400, codes: codes['400'] ?? [] }],
          unknown: [{ status: 404, codes: codes['404'] ?? [] }],
        },
      ];
    });
}

/** A hex digit changed to another one, at the last position: still a UUID, naming nothing. */
export function changedHexDigit(id: string): string {
  const last = id.at(-1)!;
  return id.slice(0, -1) + (last.toLowerCase() === 'a' ? 'b' : 'a');
}

/**
 * Every identifier probe of `doc`, each binding's ranked likeliest slip first: a case-sensitive
 * lookup of the id is the commonest, then an id cut to its column's width or matched by its start
 * (a digit appended), a prefix match (a digit changed), a lookup by what the resource holds rather
 * than its id (a sibling issued by the same request), and an ownership check that only knows the
 * id as issued (another account's id in upper case).
 */
export function identifierProbes(doc: Document): IdentifierProbe[] {
  return bindingsOf(doc).flatMap((binding) => {
    const leaves = (answers: readonly Refusal[]): IdentifierOutcome => ({ kind: 'refused-leaves-it', answers });
    return [
      {
        operator: 'NM-ID-CASE',
        what: 'the issued id in upper case',
        value: (id: string) => id.toUpperCase(),
        needs: 'issued' as const,
        outcome: { kind: 'acts-on-it' as const },
      },
      {
        operator: 'NM-ID-APPENDED',
        what: 'the issued id with a hex digit appended',
        value: (id: string) => `${id}0`,
        needs: 'issued' as const,
        outcome: leaves(binding.malformed),
      },
      {
        operator: 'NM-ID-CHANGED',
        what: 'the issued id with its last hex digit changed',
        value: changedHexDigit,
        needs: 'issued' as const,
        outcome: leaves(binding.unknown),
      },
      {
        operator: 'NM-ID-CHANGED',
        what: 'the issued id with its last digit made a non-hex letter',
        value: (id: string) => `${id.slice(0, -1)}g`,
        needs: 'issued' as const,
        outcome: leaves(binding.malformed),
      },
      {
        operator: 'NM-ID-SIBLING',
        what: "a sibling's id (issued beside it by the same request)",
        value: (_id: string, sibling: string) => sibling,
        needs: 'sibling' as const,
        outcome: { kind: 'acts-on-it' as const },
      },
      {
        operator: 'NM-ID-FOREIGN',
        what: "another account's id in upper case",
        value: (_id: string, foreign: string) => foreign.toUpperCase(),
        needs: 'foreign' as const,
        outcome: leaves(binding.unknown),
      },
    ].map((probe) => ({ ...probe, binding }));
  });
}

/** The refusals a probe's outcome allows (none when it must act on the resource). */
export function refusalsOf(probe: IdentifierProbe): readonly Refusal[] {
  return probe.outcome.kind === 'refused-leaves-it' ? probe.outcome.answers : [];
}

/** The identifier probes ranked for the request budget: each binding's in their order, every binding's n-th first. */
export function rankIdentifiers(probes: readonly IdentifierProbe[]): IdentifierProbe[] {
  const bindings = [...new Set(probes.map((p) => p.binding.parameter.id))];
  const nth = occurrences(probes, (p) => p.binding.parameter.id);
  return rankedBy(probes, (p) => [nth.get(p) ?? 0, bindings.indexOf(p.binding.parameter.id)]);
}
