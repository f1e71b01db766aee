/**
 * The gate every check passes before it runs when the run's files run in parallel (the embedded
 * target; commands/run.ts decides). Two checks may run side by side unless their claims conflict:
 *
 * - `alone`: moving the target's clock or failing the balance snapshot changes what every check sees;
 * - `webhooks`: events reach every subscription of their kind, so emitting, subscribing and
 *   originating (call.ended follows the call) are one claim, held until the check's calls ended,
 *   and taken by the origination faults too, since only POST /calls sees them; a request whose
 *   body can neither subscribe nor dial, or a subscription no one watches, takes none (requestClaim);
 * - `state:<name>`: an account state's teardown revokes its tokens by label;
 * - none, for a check that sends nothing to the target (`ownServer`).
 *
 * Within a project, `*.open.suite` files end before other files start, and `*.judge.suite` files
 * start after every other file ended (./run-order.ts). The gate lives in the process that started
 * the run; workers reach it through the run channel (harness/run/channel.ts). Without a gate
 * (a remote target, one worker, vitest started directly) every check passes at once.
 */
import { randomBytes } from 'node:crypto';
import type { ControlCapability } from '../../contract/control.ts';
import { couldOriginate } from '../../contract/origination.ts';
import type { ChannelClient } from '../run/channel-client.ts';
import { runRank } from './run-order.ts';

export type Claim = 'check' | 'alone' | 'webhooks' | `state:${string}`;

/** States whose effect reaches every other check (see above). */
const ALONE_STATES: readonly ControlCapability[] = ['clock-advanced', 'balance-upstream-failing'];
/** States whose effect reaches only POST /calls, which no check sends without holding `webhooks` (check.ts). */
const ORIGINATION_STATES: readonly ControlCapability[] = ['originate-failing', 'engine-not-configured'];
/** States that issue tokens their teardown revokes by the state's label. */
const LABELLED_STATES: readonly ControlCapability[] = [
  'token-issued',
  'token-revoked',
  'account-suspended',
  'account-without-trunk',
  'account-without-dialer',
  'agent-not-provisioned',
];

/**
 * What a check claims from the start, from the control capabilities it declares; nothing when it
 * sends nothing to the run's target (`ownServer`: it starts a server of its own, like the
 * rate-limit check), so it runs beside every check, one that runs alone included.
 */
export function claimsOf(control: readonly ControlCapability[] = [], ownServer = false): Claim[] {
  if (ownServer) return [];
  const claims: Claim[] = ['check'];
  if (control.some((c) => ALONE_STATES.includes(c))) claims.push('alone');
  if (control.includes('event-emitted') || control.some((c) => ORIGINATION_STATES.includes(c))) claims.push('webhooks');
  for (const state of control)
    if (LABELLED_STATES.includes(state)) claims.push(`state:${state === 'token-revoked' ? 'token-issued' : state}`);
  return claims;
}

/** A request as far as its claim goes: its method, path and body (check.ts CallRequest). */
export interface ClaimedRequest {
  readonly method: string;
  readonly path: string;
  readonly json?: unknown;
  readonly body?: string;
  readonly form?: unknown;
}

/**
 * What a request claims before it is sent: `webhooks` for a POST /hooks or POST /calls that may
 * subscribe or originate a call; nothing for one whose body cannot, which a conformant target
 * refuses (400) and so neither subscribes nor dials:
 * - a body that is not JSON;
 * - a POST /hooks body that breaks HookCreate (at a target that wrongly accepts it, the check
 *   that sent it fails and deletes the hook at once; deliveries go to its own target_url);
 * - a POST /calls body that breaks CallCreate and could not dial under any lenient reading
 *   (couldOriginate: a target that dials anyway has already failed the check that sent it);
 * - a POST /hooks to `unwatchedReceiver` (the run's receiver), from a check that never looks at
 *   what its subscriptions receive and neither emits nor originates (check.ts unwatchedSubscriptions).
 * `breaks(schema, value)`: whether the value breaks openapi.json's components.schemas[schema].
 */
export function requestClaim(
  request: ClaimedRequest,
  breaks: (schema: 'CallCreate' | 'HookCreate', value: unknown) => boolean,
  unwatchedReceiver?: string,
): 'webhooks' | undefined {
  if (request.method !== 'POST' || (request.path !== '/hooks' && request.path !== '/calls')) return undefined;
  if (request.form !== undefined) return 'webhooks';
  let value = request.json;
  if (value === undefined && request.body !== undefined) {
    try {
      value = JSON.parse(request.body);
    } catch {
      return undefined;
    }
  }
  if (request.path === '/hooks') {
    const target = (value as { target_url?: unknown } | null)?.target_url;
    const unwatched =
      unwatchedReceiver !== undefined &&
      typeof target === 'string' &&
      target.startsWith(`${unwatchedReceiver.replace(/\/+$/, '')}/`);
    return breaks('HookCreate', value) || unwatched ? undefined : 'webhooks';
  }
  return breaks('CallCreate', value) && !couldOriginate(value) ? undefined : 'webhooks';
}

/** Whether two different checks holding `a` and `b` may not run at the same time. */
export function conflicts(a: Claim, b: Claim): boolean {
  if (a === 'alone' || b === 'alone') return true;
  return a !== 'check' && a === b;
}

const anyConflict = (a: Iterable<Claim>, b: Iterable<Claim>): boolean => {
  const bs = [...b];
  for (const x of a) if (bs.some((y) => conflicts(x, y))) return true;
  return false;
};

/**
 * How long the gate keeps, for the next check of its file, the place of a check that ran alone.
 * Without it consecutive checks that run alone (the delivery rules) each waited for the long check
 * (a property of a second or so) the other worker started as soon as the last one left: the two
 * files then ran as if one after the other. Bounded, so a file whose next check never comes holds nobody.
 */
export const ALONE_STREAK_GRACE_MS = 50;

/** Longest an originating check's claim outlives it, waiting for its calls to end. */
const LINGER_LIMIT_MS = 30_000;

interface EntryWaiter {
  readonly id: string;
  readonly file: string;
  readonly claims: readonly Claim[];
  readonly grant: () => void;
}
interface ClaimWaiter {
  readonly id: string;
  readonly claim: Claim;
  readonly grant: () => void;
}

/** The scheduling itself, in memory (pure but for the callbacks it resolves). */
export class Gate {
  /** Running checks: what they hold, and their file. */
  private readonly running = new Map<string, { claims: Set<Claim>; file: string }>();
  private entries: EntryWaiter[] = [];
  private claimWaiters: ClaimWaiter[] = [];
  /** The run's files by project, and which of them ended; empty until the run starts (then no order is kept). */
  private readonly files = new Map<string, { project: string; ended: boolean }>();

  setFiles(files: ReadonlyArray<{ project: string; file: string }>): void {
    for (const { project, file } of files) this.files.set(file, { project, ended: false });
    this.pump();
  }

  fileEnded(file: string): void {
    const known = this.files.get(file);
    if (known !== undefined) known.ended = true;
    if (this.streak?.file === file) this.endStreak();
    this.pump();
  }

  /** Whether the files that must end before `file` starts have ended. */
  private ordered(file: string): boolean {
    const own = this.files.get(file);
    if (own === undefined) return true;
    const rank = runRank(file);
    for (const [other, { project, ended }] of this.files) {
      if (!ended && other !== file && project === own.project && runRank(other) < rank) return false;
    }
    return true;
  }

  /** A file whose check ran alone and just left: its next check goes first (ALONE_STREAK_GRACE_MS). */
  private streak: { file: string; timer: ReturnType<typeof setTimeout> } | undefined;

  private endStreak(): void {
    if (this.streak === undefined) return;
    clearTimeout(this.streak.timer);
    this.streak = undefined;
  }

  /** Whether a check of `file` with `claims` must let the streak's file go first. */
  private heldForStreak(file: string, claims: Iterable<Claim>): boolean {
    return this.streak !== undefined && file !== this.streak.file && anyConflict(claims, ['alone']);
  }

  enter(id: string, file: string, claims: readonly Claim[]): Promise<void> {
    return new Promise((grant) => {
      this.entries.push({ id, file, claims, grant });
      this.pump();
    });
  }

  /** A claim taken by a running check; it waits only for running checks, never for queued ones (no deadlock). */
  claim(id: string, claim: Claim): Promise<void> {
    if (this.running.get(id)?.claims.has(claim) === true) return Promise.resolve();
    return new Promise((grant) => {
      this.claimWaiters.push({ id, claim, grant });
      this.pump();
    });
  }

  /** Checks that originated a call: their `webhooks` claim outlives them until the calls ended. */
  private readonly originators = new Set<string>();

  /** How many calls the run's target has in progress (the embedded reference's count; the CLI passes it). */
  private readonly callsInProgress: () => number;

  constructor(callsInProgress: () => number = () => 0) {
    this.callsInProgress = callsInProgress;
  }

  /** Marks a running check as one that originates calls (see leave). */
  originates(id: string): void {
    this.originators.add(id);
  }

  leave(id: string): void {
    this.entries = this.entries.filter((w) => w.id !== id);
    this.claimWaiters = this.claimWaiters.filter((w) => w.id !== id);
    const running = this.running.get(id);
    if (this.originators.delete(id) && running?.claims.has('webhooks') === true) {
      // call.ended comes when the call ends, after the check: until then nothing else may hold a
      // subscription or emit (bounded: a call of the embedded reference lasts 100 ms).
      this.running.set(id, { claims: new Set(['webhooks']), file: running.file });
      const until = Date.now() + LINGER_LIMIT_MS;
      const settle = () => {
        if (this.callsInProgress() > 0 && Date.now() < until) setTimeout(settle, 20).unref();
        else this.leave(id);
      };
      settle();
    } else {
      if (running?.claims.has('alone') === true) {
        this.endStreak();
        this.streak = {
          file: running.file,
          timer: setTimeout(() => {
            this.endStreak();
            this.pump();
          }, ALONE_STREAK_GRACE_MS),
        };
        this.streak.timer.unref();
      }
      this.running.delete(id);
    }
    this.pump();
  }

  /** Checks running now (for tests and diagnostics). */
  runningNow(): string[] {
    return [...this.running.keys()];
  }

  private othersConflict(id: string, claims: Iterable<Claim>): boolean {
    for (const [other, { claims: held }] of this.running) if (other !== id && anyConflict(claims, held)) return true;
    return false;
  }

  private pump(): void {
    for (const waiter of [...this.claimWaiters]) {
      const held = this.running.get(waiter.id);
      if (
        held === undefined ||
        this.othersConflict(waiter.id, [waiter.claim]) ||
        this.heldForStreak(held.file, [waiter.claim])
      )
        continue;
      held.claims.add(waiter.claim);
      this.claimWaiters.splice(this.claimWaiters.indexOf(waiter), 1);
      waiter.grant();
    }
    // First come, first served: a check waiting for others to end (e.g. one that runs alone) is
    // not overtaken by later ones it conflicts with. A check held back only by the file order
    // holds back nobody.
    const ahead: Array<readonly Claim[]> = [];
    let streakEnded = false;
    for (const waiter of [...this.entries]) {
      if (!this.ordered(waiter.file)) continue;
      // Behind the streak's file, which goes first: not counted as ahead of it.
      if (this.heldForStreak(waiter.file, waiter.claims)) continue;
      if (this.othersConflict(waiter.id, waiter.claims) || ahead.some((claims) => anyConflict(claims, waiter.claims))) {
        ahead.push(waiter.claims);
        continue;
      }
      if (waiter.file === this.streak?.file) {
        this.endStreak();
        streakEnded = true;
      }
      this.running.set(waiter.id, { claims: new Set(waiter.claims), file: waiter.file });
      this.entries.splice(this.entries.indexOf(waiter), 1);
      waiter.grant();
    }
    // Checks passed over for the streak get their turn now (at most once more: the streak is gone).
    if (streakEnded) this.pump();
  }
}

// ── In a worker ──

export interface Pass {
  /**
   * Takes a further claim (waits for the running checks it conflicts
   * with); `originates`: the check is about to originate a call.
   */
  claim(claim: Claim, originates?: boolean): Promise<void>;
  leave(): Promise<void>;
}

const OPEN: Pass = { claim: async () => undefined, leave: async () => undefined };

/** Enters the run's gate (waits for its turn) through the run channel; with no gate, passes at once. */
export async function enterGate(
  channel: ChannelClient | undefined,
  file: string,
  claims: readonly Claim[],
  signal?: AbortSignal,
): Promise<Pass> {
  if (channel === undefined) return OPEN;
  const id = randomBytes(12).toString('hex');
  // Leaving is never cancelled: a check that stopped must free its place whatever stopped it.
  const post = (path: string, body: Record<string, unknown>, cancellable = true): Promise<unknown> =>
    channel.call(`/gate${path}`, { id, ...body }, cancellable ? signal : undefined);
  const leave = async () => {
    await post('/leave', {}, false);
  };
  try {
    await post('/enter', { file, claims });
  } catch (error) {
    await leave().catch(() => undefined);
    throw error;
  }
  // A claim the check holds is never asked for again: a property sends hundreds of POST /hooks,
  // each of which would cost a round trip the gate answers at once. Marking the check an
  // originator is still sent once.
  const held = new Set<Claim>(claims);
  let originator = false;
  return {
    async claim(claim, originates = false) {
      if (held.has(claim) && (originator || !originates)) return;
      await post('/claim', { claim, originates });
      held.add(claim);
      if (originates) originator = true;
    },
    leave,
  };
}
