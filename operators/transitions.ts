/**
 * Near-miss family "transitions" (NM-CONCURRENT-TRANSITION, NM-USE-AFTER-TRANSITION): the doubles of
 * every state-changing operation of openapi.json, with the outcome the spec's state table makes
 * definite. Nothing here names an operation: the operations are openapi.json's, and what a double
 * of each must do is read off the table.
 *
 * openapi.json carries no state table, so the table below is the spec's "States and transitions ›
 * Webhook subscription" table, row for row. A state-changing operation is one of an unsafe method
 * (RFC 9110 §9.2.1: all but GET, HEAD, OPTIONS and TRACE). For each:
 *
 *   it moves an existing state to another    the same request twice at the same moment: the first
 *   (a row from X to Y ≠ X, and a row of     moves the state, so exactly one gets the row's answer
 *   the same operation from Y, "always")     and the other the answer of the row from Y; the
 *                                            request again after it (use after) answers as from Y;
 *   it creates (a row from "(none)")         both requests are creations from "(none)": the table
 *                                            refuses neither, so two creations or one refusal are
 *                                            both readings (the one taken is recorded); no two
 *                                            creations share the id or a value given once, and
 *                                            each created resource is in the next state: the
 *                                            operation its row moves it by answers that row's
 *                                            answer (use after creation);
 *   no row of the table moves by it          no definite outcome: listed with why, never probed.
 */
import { openapi } from '../contract/openapi.ts';
import { firstStatus, operationsOf, resolve, type Document, type Schema } from './document.ts';
import { oneTimeValues } from './one-time-values.ts';

export interface Answer {
  readonly status: number;
  readonly error?: string;
}

export interface StateRow {
  readonly from: string;
  /** An API operation ("DELETE /hooks/{id}"), or a cause that is not a request (delivery failures). */
  readonly movedBy: string;
  readonly condition: string;
  readonly next: string;
  readonly answer?: Answer;
}

/** The spec's state table of a webhook subscription. '(none)' is the state before creation. */
export const subscriptionStates: readonly StateRow[] = [
  { from: '(none)', movedBy: 'POST /hooks', condition: 'valid body', next: 'active' },
  {
    from: 'active',
    movedBy: 'DELETE /hooks/{id}',
    condition: 'hook exists and belongs to the account',
    next: 'disabled',
    answer: { status: 204 },
  },
  { from: 'active', movedBy: 'delivery failures', condition: '10 consecutive failures', next: 'disabled' },
  {
    from: 'disabled',
    movedBy: 'DELETE /hooks/{id}',
    condition: 'always',
    next: 'disabled',
    answer: { status: 404, error: 'not_found' },
  },
];

/** States to which the spec says nothing is delivered ("a disabled subscription gets nothing"). */
export const silentStates: readonly string[] = ['disabled'];

/** RFC 9110 §9.2.1: the safe methods; every other one may change the target's state. */
const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS', 'TRACE'];

/** Every operation of `doc` whose method is not safe, in document order. */
export function stateChangingOperations(doc: Document = openapi as unknown as Document): string[] {
  return operationsOf(doc)
    .filter((operation) => !SAFE_METHODS.includes(operation.method))
    .map((operation) => operation.key);
}

export interface TransitionProbe {
  readonly id: 'NM-CONCURRENT-TRANSITION' | 'NM-USE-AFTER-TRANSITION';
  /** Moves an existing state (exactly one of a double wins), or creates from "(none)" (both may). */
  readonly kind: 'move' | 'create';
  readonly operation: string;
  readonly from: string;
  readonly next: string;
  /** The answer of the request that moves the state (a creation: the operation's documented 2xx). */
  readonly mover: Answer;
  /** The answer in the next state: of the same request (move), or of `usedBy` on the created resource. */
  readonly after: Answer;
  /** A creation: the operation the next state's row moves the created resource by (its use after). */
  readonly usedBy?: string;
  /** A creation: the 2xx body's field naming the resource, and the fields it gives only once. */
  readonly identity?: string;
  readonly once: readonly string[];
  /** Whether the next state receives no delivery. */
  readonly silent: boolean;
}

/** A state-changing operation no probe is derived for, and why. */
export interface UndeterminedDouble {
  readonly operation: string;
  readonly why: string;
}

/** The property of an operation's 2xx JSON body that names what it created ("id" first, else a uuid). */
function identityOf(doc: Document, key: string): { identity?: string; note?: string } {
  const operation = operationsOf(doc).find((o) => o.key === key)!;
  const op = doc.paths[operation.path]![operation.method.toLowerCase()] as {
    responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  };
  const ok = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
  const body = resolve(doc, ok?.content?.['application/json']?.schema);
  const required = body.required ?? [];
  const ids = required.filter((name) => resolve(doc, body.properties?.[name]).format === 'uuid');
  const identity = ids.find((name) => name === 'id') ?? ids[0];
  const note = (body as { 'x-note'?: string })['x-note'];
  return { ...(identity === undefined ? {} : { identity }), ...(note === undefined ? {} : { note }) };
}

function derive(doc: Document, table: readonly StateRow[]): { probes: TransitionProbe[]; none: UndeterminedDouble[] } {
  const probes: TransitionProbe[] = [];
  const none: UndeterminedDouble[] = [];
  for (const key of stateChangingOperations(doc)) {
    const operation = operationsOf(doc).find((o) => o.key === key)!;
    const rows = table.filter((r) => r.movedBy === key);
    const move = rows.find((r) => r.from !== '(none)' && r.from !== r.next && r.answer !== undefined);
    const afterMove = table.find((r) => r.from === move?.next && r.movedBy === key && r.condition === 'always');
    const create = rows.find((r) => r.from === '(none)');
    const success = firstStatus(operation, '2');
    const base = { operation: key, once: [] as string[] };
    if (move?.answer !== undefined && afterMove?.answer !== undefined) {
      const common = { ...base, kind: 'move' as const, from: move.from, next: move.next, mover: move.answer };
      const rest = { after: afterMove.answer, silent: silentStates.includes(move.next) };
      probes.push(
        { id: 'NM-CONCURRENT-TRANSITION', ...common, ...rest },
        { id: 'NM-USE-AFTER-TRANSITION', ...common, ...rest },
      );
      continue;
    }
    const isOperation = (movedBy: string) => operationsOf(doc).some((o) => o.key === movedBy);
    const then = table.find((r) => r.from === create?.next && isOperation(r.movedBy) && r.answer !== undefined);
    const { identity, note } = identityOf(doc, key);
    if (create !== undefined && success !== undefined && then?.answer !== undefined && identity !== undefined) {
      const once = oneTimeValues(doc as never)
        .filter((v) => v.operation === key)
        .map((v) => v.field);
      const common = {
        ...base,
        kind: 'create' as const,
        from: '(none)',
        next: create.next,
        mover: { status: success },
        after: then.answer,
        usedBy: then.movedBy,
        identity,
        once,
        silent: false,
      };
      probes.push({ id: 'NM-CONCURRENT-TRANSITION', ...common }, { id: 'NM-USE-AFTER-TRANSITION', ...common });
      continue;
    }
    const contract = note === undefined ? '' : `; openapi.json: "${note}"`;
    none.push({
      operation: key,
      why:
        rows.length === 0
          ? `no row of the spec's state tables is moved by it${contract}: what a second request at the same ` +
            'moment does is not shown'
          : 'its rows name no answer in the next state',
    });
  }
  return { probes, none };
}

/**
 * Every transition probe of `doc` over `table`: a concurrent double and a use after for each
 * state-changing operation the table makes definite (default: openapi.json and the subscription
 * table).
 */
export function transitionProbes(
  doc: Document = openapi as unknown as Document,
  table: readonly StateRow[] = subscriptionStates,
): TransitionProbe[] {
  return derive(doc, table).probes;
}

/** The state-changing operations of `doc` no double is derived for, and why. */
export function undeterminedDoubles(
  doc: Document = openapi as unknown as Document,
  table: readonly StateRow[] = subscriptionStates,
): UndeterminedDouble[] {
  return derive(doc, table).none;
}

export interface Seen {
  readonly status: number | undefined;
  readonly error?: string | undefined;
}

const matches = (seen: Seen, answer: Answer) =>
  seen.status === answer.status && (answer.error === undefined || seen.error === answer.error);

const show = (a: Answer) => `${a.status}${a.error === undefined ? '' : ` ${a.error}`}`;
const shown = (s: Seen) => `${s.status ?? 'no answer'}${s.error === undefined ? '' : ` ${s.error}`}`;

/**
 * The verdict of a concurrent double of a move: exactly one answer is the mover's, the other the
 * next state's (in either order: which one arrives first is the target's). undefined when it holds.
 */
export function judgeConcurrentDouble(probe: TransitionProbe, seen: readonly [Seen, Seen]): string | undefined {
  const [a, b] = seen;
  if ((matches(a, probe.mover) && matches(b, probe.after)) || (matches(b, probe.mover) && matches(a, probe.after)))
    return undefined;
  return (
    `two ${probe.operation} of one ${probe.from} resource sent at once answered ${shown(a)} and ${shown(b)}: ` +
    `exactly one must move it to ${probe.next} (${show(probe.mover)}) and the other meet it ${probe.next} ` +
    `(${show(probe.after)})`
  );
}

/** The verdict of the same request after the move (or of `usedBy` on a created resource). undefined when it holds. */
export function judgeUseAfter(probe: TransitionProbe, seen: Seen): string | undefined {
  if (matches(seen, probe.after)) return undefined;
  const what =
    probe.usedBy === undefined ? probe.operation : `${probe.usedBy} of a resource ${probe.operation} created`;
  return `${what} in the state ${probe.next} answered ${shown(seen)}, must be ${show(probe.after)}`;
}

/** One answer of a creation double: its status, body and raw text. */
export interface CreationAnswer {
  readonly status: number | undefined;
  readonly json: unknown;
  readonly rawBody: string;
}

export interface CreationVerdict {
  readonly problem: string | undefined;
  /** Which reading the target took (both are allowed): two creations, or one of them refused. */
  readonly reading: string | undefined;
  /** The identities of the resources created (to use after, and to clean up). */
  readonly created: readonly string[];
  /** The values given once that two answers carried (the one-time values' requirement fails too). */
  readonly givenTwice: readonly string[];
}

/**
 * The verdict of a concurrent double of a creation: each answer creates (the mover's status) or is
 * refused (4xx: the table refuses neither, and the spec leaves a duplicate's answer unshown), and
 * at least one creates; no two creations share the identity or a value given once, and a refusal
 * carries no value the creation gave once.
 */
export function judgeConcurrentCreation(
  probe: TransitionProbe,
  answers: readonly [CreationAnswer, CreationAnswer],
): CreationVerdict {
  const field = (answer: CreationAnswer, name: string) => (answer.json as Record<string, unknown> | undefined)?.[name];
  const made = answers.filter((a) => a.status === probe.mover.status);
  const odd = answers.filter((a) => a.status !== probe.mover.status && !(a.status! >= 400 && a.status! < 500));
  const created = made.map((a) => field(a, probe.identity!)).filter((id): id is string => typeof id === 'string');
  const statuses = answers.map((a) => a.status ?? 'no answer').join(' and ');
  const fail = (problem: string, givenTwice: readonly string[] = []): CreationVerdict => ({
    problem,
    reading: undefined,
    created,
    givenTwice,
  });
  if (odd.length > 0 || made.length === 0)
    return fail(
      `two identical ${probe.operation} sent at once answered ${statuses}: each must create (${probe.mover.status}) ` +
        'or be refused (4xx), and at least one must create',
    );
  const given = [probe.identity!, ...probe.once];
  if (made.length === 2) {
    const shared = given.filter(
      (name) => field(made[0]!, name) !== undefined && field(made[0]!, name) === field(made[1]!, name),
    );
    if (shared.length > 0)
      return fail(
        `two identical ${probe.operation} sent at once both answered ${probe.mover.status} with the same ` +
          `${shared.join(' and ')}: two creations are two resources, each with its own`,
        shared.filter((name) => probe.once.includes(name)),
      );
    const reading = `two creations (${probe.identity}s ${created.join(', ')})`;
    return { problem: undefined, reading, created, givenTwice: [] };
  }
  const refused = answers.find((a) => a !== made[0])!;
  // A refusal may name the resource it duplicates; a value given once it may not carry.
  const leaked = probe.once.filter((name) => {
    const value = field(made[0]!, name);
    return typeof value === 'string' && value !== '' && refused.rawBody.includes(value);
  });
  if (leaked.length > 0)
    return fail(
      `of two identical ${probe.operation} sent at once, the refused one (${refused.status}) carries the other's ` +
        `${leaked.join(' and ')}`,
      leaked,
    );
  return {
    problem: undefined,
    reading: `one creation, the other refused (${refused.status})`,
    created,
    givenTwice: [],
  };
}
