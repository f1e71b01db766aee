/**
 * Near-miss families of side effects: what a request leaves behind, which no per-response rule sees.
 *
 * NM-REFUSAL-WITHOUT-EFFECT: a request the target refuses leaves no record of itself where the
 * contract lets a client see records. Applied to every state-changing operation of the document
 * (an unsafe method, RFC 9110 §9.2.1) for which the spec names a place its records show, with every
 * near miss the request-shape operators derive for it that a conforming target must refuse. The
 * places are the spec's (openapi.json names the reads but not which operation fills them):
 *
 *   POST /hooks          deliveries to the body's target_url ("Events are delivered by HTTP POST …
 *                        to the target_url of a subscription created by POST /hooks"): after an
 *                        event of the body's kind, nothing arrives there;
 *   POST /calls          the call detail records of GET /cdrs (a call's record: `dst` the "called
 *                        number"): no record whose called number is the body's toNumber;
 *   DELETE /hooks/{id}   the subscription it names: the identifiers family already sends its
 *                        refused near misses against an issued id and proves it left as it was.
 *
 * NM-INERT-FIELD: every request field the contract calls accepted but not persisted, or not
 * forwarded (its description says so), is sent in one request and left out of an otherwise equal
 * one; the records the two leave must not differ by it: the value sent appears in no record of the
 * request that carried it unless it appears in the other's too.
 */
import { openapi } from '../contract/openapi.ts';
import { elementsOf, type Document, type Element } from './document.ts';
import type { OperatorInfo, ValueProbe } from './operator.ts';
import { rankStrings } from './strings.ts';
import { stateChangingOperations } from './transitions.ts';

export const REFUSAL_WITHOUT_EFFECT = 'NM-REFUSAL-WITHOUT-EFFECT';
export const INERT_FIELD = 'NM-INERT-FIELD';

/** Where a client sees the records an operation leaves, in the spec's words. */
export interface RecordPlace {
  readonly operation: string;
  readonly read: 'deliveries' | 'cdrs' | 'the resource';
  /** The body field (or path parameter) the record is found by. */
  readonly by: string;
  readonly sentence: string;
  /** Where another family already sends the refused near misses and reads the place. */
  readonly realisedBy?: string;
}

/** The spec's places of records, one row per operation. */
export const recordPlaces: readonly RecordPlace[] = [
  {
    operation: 'POST /hooks',
    read: 'deliveries',
    by: 'target_url',
    sentence:
      'Events are delivered by HTTP POST with a JSON body to the `target_url` of a subscription created by POST /hooks',
  },
  {
    operation: 'POST /calls',
    read: 'cdrs',
    by: 'toNumber',
    sentence: 'list call detail records (CDRs) for a time window; Cdr `dst`: called number',
  },
  {
    operation: 'DELETE /hooks/{id}',
    read: 'the resource',
    by: 'id',
    sentence: 'DELETE /hooks/{id}: 400 `invalid_input` (id not a UUID), 404 `not_found` (hook does not exist …)',
    realisedBy: 'the identifiers family (NM-ID-APPENDED, NM-ID-CHANGED, NM-ID-FOREIGN: the resource left as it was)',
  },
];

export interface RefusalProbe {
  readonly operator: typeof REFUSAL_WITHOUT_EFFECT;
  readonly operation: string;
  readonly place: RecordPlace;
  /** The request-shape near miss sent: a conforming target refuses it. */
  readonly nearMiss: ValueProbe;
}

/** A state-changing operation no refusal probe is derived for, and why. */
export interface NoRefusalProbe {
  readonly operation: string;
  readonly why: string;
}

/**
 * Every refusal probe of `doc`: each state-changing operation with a place of records (and no
 * other family realising it) × each near miss of `nearMisses` on that operation that must be
 * refused, ranked: an optional field first (validated last, after the work is done), then a
 * length bound (a column's limit, met at the write), then the request-shape ranking.
 */
export function refusalProbes(
  nearMisses: readonly ValueProbe[],
  doc: Document = openapi as unknown as Document,
  places: readonly RecordPlace[] = recordPlaces,
): { probes: RefusalProbe[]; none: NoRefusalProbe[] } {
  const probes: RefusalProbe[] = [];
  const none: NoRefusalProbe[] = [];
  const ranked = rankStrings(nearMisses);
  for (const operation of stateChangingOperations(doc)) {
    const place = places.find((p) => p.operation === operation);
    if (place === undefined) {
      none.push({ operation, why: 'the spec names no place where a client sees its records' });
      continue;
    }
    if (place.realisedBy !== undefined) {
      none.push({ operation, why: `realised by ${place.realisedBy}` });
      continue;
    }
    const own = ranked.filter((p) => p.element.operation.key === operation && p.expect.kind === 'refused');
    const key = (p: ValueProbe) => (p.element.required ? 2 : 0) + (p.operator === 'NM-LENGTH-BOUND' ? 0 : 1);
    const sorted = own.map((p, i) => ({ p, i })).sort((a, b) => key(a.p) - key(b.p) || a.i - b.i);
    for (const { p } of sorted) probes.push({ operator: REFUSAL_WITHOUT_EFFECT, operation, place, nearMiss: p });
  }
  return { probes, none };
}

/** The ASCII digits of a number as written (a record's `dst`, a toNumber). */
export const digitsOf = (value: unknown): string => (typeof value === 'string' ? value.replace(/[^0-9]/g, '') : '');

/** The records among `cdrs` whose called number is `toNumber` (compared digit for digit). */
export function recordsOfCall(cdrs: readonly unknown[], toNumber: string): unknown[] {
  const wanted = digitsOf(toNumber);
  return cdrs.filter((row) => wanted !== '' && digitsOf((row as { dst?: unknown } | null)?.dst) === wanted);
}

/**
 * The verdict on a refused request and what its place showed afterwards: undefined when the
 * request was not refused with a 4xx (an acceptance is the request-shape operator's to judge; after
 * a 5xx the work may have been attempted, and a record of a failed attempt is a reading the spec
 * allows: a CDR's dispositions are not shown) or left nothing.
 */
export function judgeRefusal(probe: RefusalProbe, status: number | undefined, records: number): string | undefined {
  if (status === undefined || status < 400 || status >= 500 || records === 0) return undefined;
  const seen = probe.place.read === 'deliveries' ? `${records} deliveries arrived at its target_url` : '';
  const cdrs = probe.place.read === 'cdrs' ? `${records} call detail record(s) of its toNumber appeared` : '';
  return (
    `${probe.operation} with ${probe.nearMiss.element.name} ${probe.nearMiss.what} was refused ${status}, ` +
    `yet ${seen || cdrs || `${records} record(s) appeared`}: a refused request has no effect`
  );
}

/** A field the contract calls accepted but not persisted or not forwarded. */
export interface InertField {
  readonly operator: typeof INERT_FIELD;
  readonly element: Element;
  /** The contract's words: 'not persisted' or 'not forwarded'. */
  readonly words: string;
  readonly sentence: string;
}

const INERT = /\bnot (persisted|forwarded|stored|kept)\b/i;

/** Every inert field of `doc`, from the descriptions of its body fields. */
export function inertFields(doc: Document = openapi as unknown as Document): InertField[] {
  return elementsOf(doc)
    .filter((e) => e.location === 'body')
    .flatMap((element) => {
      const sentence = (element.schema as { description?: string }).description ?? '';
      const words = INERT.exec(sentence)?.[0];
      return words === undefined ? [] : [{ operator: INERT_FIELD, element, words: words.toLowerCase(), sentence }];
    });
}

export interface InertVerdict {
  readonly problem: string | undefined;
  /** What the records showed, for an observation. */
  readonly reading: string;
}

/**
 * The records of two otherwise equal requests, `withField` carrying `marker` (the value sent, or a
 * string inside it) and `without` not: the records differ the way the contract forbids when the
 * marker is in the records of the one and not of the other.
 */
export function judgeInert(
  field: InertField,
  marker: string,
  withField: readonly unknown[],
  without: readonly unknown[],
): InertVerdict {
  const carries = (records: readonly unknown[]) => records.filter((r) => JSON.stringify(r).includes(marker)).length;
  const a = carries(withField);
  const b = carries(without);
  const reading =
    `${a} of ${withField.length} record(s) of the request with ${field.element.name} carry it, ` +
    `${b} of ${without.length} of the one without`;
  if (a > 0 && b === 0)
    return {
      problem:
        `${field.element.operation.key}: ${field.element.name} (${JSON.stringify(marker)}) appears in the records of ` +
        `the request that sent it and not of an otherwise equal one: the contract says "${field.sentence}"`,
      reading,
    };
  return { problem: undefined, reading };
}

/**
 * The same judgement where the records of the two requests cannot be told apart (one destination
 * for both): the marker in some of them and not in all is the difference the contract forbids; in
 * none, or in all (the target's own value, whatever the request said), it is not.
 */
export function judgeInertTogether(field: InertField, marker: string, records: readonly unknown[]): InertVerdict {
  const carrying = records.filter((r) => JSON.stringify(r).includes(marker));
  const reading =
    `${carrying.length} of the ${records.length} record(s) of the calls with and without ${field.element.name} ` +
    'carry it (the two cannot be told apart)';
  if (carrying.length === records.length) return { problem: undefined, reading };
  const others = records.filter((r) => !carrying.includes(r));
  return { problem: judgeInert(field, marker, carrying, others).problem, reading };
}

export const effectOperators: readonly Omit<OperatorInfo, 'family'>[] = [
  {
    id: REFUSAL_WITHOUT_EFFECT,
    appliesTo:
      'every state-changing operation with a place of records in the spec (POST /hooks: deliveries to its ' +
      'target_url; POST /calls: the CDRs of its toNumber) × every near miss of it a conforming target refuses',
    verdict: 'after a 4xx refusal, no record of the request appears in its place',
    because: 'only a "valid body" moves (none) to active; 400 `invalid_input` when "a field fails validation"',
  },
  {
    id: INERT_FIELD,
    appliesTo: 'every body field the contract calls "not persisted" or "not forwarded" (metadata, fromNumber)',
    verdict:
      'sent in one request and left out of an otherwise equal one, it appears in the records of neither or of both',
    because:
      'fromNumber: "validated but reserved for the future, not forwarded"; metadata: "accepted but not persisted"',
  },
];
