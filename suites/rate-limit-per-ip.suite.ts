/**
 * The limit is per client IP (spec, Limits: "100 requests per minute per IP"): RATE-LIMIT-PER-IP.
 * A limiter keyed by bearer token, or one bucket for every client, passes every other rate check;
 * only a second token and a second client address tell them apart. Two halves:
 *
 *   several tokens, one address   address A spends its budget with token `all` (up to the first
 *                                 429), then another token of the account from A must be refused
 *                                 too: a limiter keyed per token serves it.
 *   a second address              while A is refused, a client on address B must be served: one
 *                                 bucket for every client refuses it.
 *   forwarding headers            while A is refused, A adding X-Forwarded-For, Forwarded, X-Real-IP
 *                                 or X-Client-IP naming a fresh address must stay refused: a header
 *                                 the client writes is not its IP (operators/client-identity.ts).
 *
 *   unauthenticated requests      an address spends its budget with requests carrying no token, or
 *                                 one never issued (each answered 401 or 429: the spec shows no
 *                                 order, the answer is recorded); a valid request from it must
 *                                 then be refused: "Applies to: all" (operators/client-identity.ts,
 *                                 NM-UNAUTHENTICATED-BUDGET). A control address spends its budget
 *                                 with valid requests beside it, at the same pace: a window that
 *                                 frees slots on a slow host frees them for both, so only a probe
 *                                 served while the control is refused, rounds in a row, fails it
 *                                 (its own addresses 127.0.0.203 to .206).
 *
 * Each probe is followed by one more request from A: only when A is still refused was the budget
 * still spent when the probe went out (a window that turned in between voids the probe, and it is
 * tried again, at most three times), so a fixed window aligned to the clock never decides it. A
 * forwarding header is judged served only when it is served FRESH_BUDGET_ROUNDS times in a row, each
 * followed by a refusal of A: a header taken as the client's address opens a fresh budget, while a
 * sliding window that frees one slot (a busy host, a short window) serves one request, not three.
 * The second token is judged the same way: a limiter keyed per token serves it three times.
 *
 * Where: the embedded target → a reference of the check's own (harness/run/own-reference.ts: 100
 * per minute on a clock held still, the run's faults), A = 127.0.0.1, B = 127.0.0.2. A remote target on IPv4 loopback →
 * the target itself, from A = 127.0.0.201 and B = 127.0.0.202, addresses neither the run (127.0.0.1)
 * nor the k6 runners (127.0.0.2…) use, so the run's own budget is untouched. Any other target: not
 * verifiable: one machine is one address to it, and spending the run's own budget would refuse the
 * run's other checks; the k6 probe (--with-load) judges the several-tokens half, k6 runners on
 * their own nodes both (docs/load-distributed.md).
 */
import { createAddressClient } from '../harness/http/address-client.ts';
import { session } from '../harness/run/session.ts';
import { describe } from 'vitest';
import { limits } from '../contract/openapi.ts';
import { secondAddressUnreachable } from '../harness/http/source-address.ts';
import { tokenVariable } from '../harness/config/tokens.ts';
import { check } from '../harness/checks/check.ts';
import { startOwnReference } from '../harness/run/own-reference.ts';
import {
  forwardingHeaders,
  freshAddress,
  judgeForwarded,
  type BudgetRound,
  judgeUnauthenticatedSpend,
  type SpendVerdict,
  unauthenticatedReading,
  unauthenticatedRequests,
} from '../operators/client-identity.ts';

const PER_WINDOW = limits.requestsPerMinute;
/** The burst stops at the first refusal, or here (a limit far above the documented one is RATE-LIMIT-ENFORCED's). */
const MAX_BURST = 2 * PER_WINDOW + 10;
const ATTEMPTS = 3;
/**
 * Times in a row a probe (another token, a forwarding header) must be served, A refused after each,
 * to count as a fresh budget.
 */
const FRESH_BUDGET_ROUNDS = 3;
/** Tokens of the TOKEN_ALL account GET /me accepts (any valid token: ME-ANY-SCOPE); the first one configured. */
const OTHER_TOKENS = ['none', 'read:balance', 'read:cdrs', 'read:agents', 'write:calls', 'write:hooks'] as const;

const REMOTE_ADDRESSES = { a: '127.0.0.201', b: '127.0.0.202' } as const;
const EMBEDDED_ADDRESSES = { a: '127.0.0.1', b: '127.0.0.2' } as const;

type Status = number | 'unreachable';

interface Client {
  readonly address: string;
  /** GET /me with `token` (none: `headers` alone say what credentials it carries). */
  get(token: string | undefined, headers?: Readonly<Record<string, string>>): Promise<Status>;
  close(): Promise<void>;
}

function client(baseUrl: string, address: string): Client {
  // The run's target: its answers (429s with Retry-After among them) are linted like the run client's.
  const own = createAddressClient({ baseUrl, localAddress: address, read: (m) => session().api.lintOther(m) });
  return {
    address,
    async get(token, headers = {}) {
      const answer = await own.send({
        path: '/me',
        headers: token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` },
      });
      return answer === 'unreachable' ? answer : answer.status;
    },
    close: () => own.close(),
  };
}

/** One sandwiched probe: its status, and whether A was still refused right after it (else void). */
interface Probe {
  readonly status: Status;
  readonly conclusive: boolean;
}

/**
 * A spent client trying for a budget of its own (another token, a forwarding header naming a fresh
 * address): refused at once (the budget holds), or served FRESH_BUDGET_ROUNDS times in a row with A
 * refused after each (a fresh budget). A served again in between voids it.
 */
async function freshBudgetProbe(a: Client, token: string, send: () => Promise<Status>): Promise<Probe> {
  let status: Status = 429;
  for (let round = 0; round < FRESH_BUDGET_ROUNDS; round++) {
    status = await send();
    if ((await a.get(token)) !== 429) return { status, conclusive: false };
    if (status === 429 || status === 'unreachable') break;
  }
  return { status, conclusive: true };
}

describe('Request rate limit, per client IP', () => {
  check(
    'Requests of two tokens from one address share one budget; a second address is served while the first is refused',
    {
      verifies: ['RATE-LIMIT-PER-IP'],
      // None from the run's own address: a loopback target gets at most ATTEMPTS × (MAX_BURST + 32) from
      // 127.0.0.201/.202, outside the run's budget as the k6 probes are; a target elsewhere gets nothing.
      requests: 0,
      ownServer: true,
      timeoutMs: 60_000,
    },
    async (t) => {
      let baseUrl: string;
      let tokens: { first: string; second: string | undefined; secondName: string };
      let addresses: { a: string; b: string };
      if (t.target.kind === 'embedded') {
        // Its limiter's clock stands still: the window never turns during the check.
        const server = await startOwnReference({ host: '127.0.0.1', perWindow: PER_WINDOW, windowMs: 60_000 });
        t.onCleanup(() => server.close());
        baseUrl = server.baseUrl;
        tokens = { first: server.tokens.all, second: server.tokens.none, secondName: 'none' };
        addresses = EMBEDDED_ADDRESSES;
      } else {
        const unreachable = secondAddressUnreachable(t.target.baseUrl);
        if (unreachable !== undefined) {
          t.notVerifiable(
            `${unreachable}; the several-tokens half is the k6 rate-limit probe's (--with-load): ` +
              "from the run's own address it would refuse the run's other checks",
          );
        }
        const first = t.target.tokens.all;
        if (first === undefined) t.notVerifiable('needs TOKEN_ALL (an all-scope token of the account)');
        const secondName = OTHER_TOKENS.find((name) => t.target.tokens[name] !== undefined) ?? 'none';
        baseUrl = t.target.baseUrl;
        tokens = { first: first!, second: t.target.tokens[secondName], secondName };
        addresses = REMOTE_ADDRESSES;
      }
      const a = client(baseUrl, addresses.a);
      const b = client(baseUrl, addresses.b);
      t.onCleanup(async () => {
        await a.close();
        await b.close();
      });

      const forwarded = new Map<string, Probe>();
      let tokenProbe: Probe | undefined;
      let addressProbe: Probe | undefined;
      let served = 0;
      for (let attempt = 1; attempt <= ATTEMPTS && !(tokenProbe?.conclusive && addressProbe?.conclusive); attempt++) {
        // A spends its budget with the first token, in small parallel batches, up to the first refusal.
        served = 0;
        let refused = false;
        while (!refused && served < MAX_BURST) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(10, MAX_BURST - served) }, () => a.get(tokens.first)),
          );
          if (batch.includes('unreachable'))
            t.notVerifiable(
              `this machine cannot send from ${a.address} (on macOS: sudo ifconfig lo0 alias ${a.address} up)`,
            );
          served += batch.filter((s) => typeof s === 'number' && s >= 200 && s < 300).length;
          refused = batch.includes(429);
        }
        if (!refused) {
          t.notVerifiable(
            `${MAX_BURST} requests from ${a.address} were served without a refusal: ` +
              'without a limit to spend there is no per-IP budget to compare (RATE-LIMIT-ENFORCED)',
          );
        }
        if (!tokenProbe?.conclusive && tokens.second !== undefined) {
          const second = tokens.second;
          tokenProbe = await freshBudgetProbe(a, tokens.first, () => a.get(second));
        }
        // The same spent client naming a fresh address in a header it writes itself (operators/client-identity.ts).
        for (const [index, probe] of forwardingHeaders.entries()) {
          if (forwarded.get(probe.header)?.conclusive) continue;
          const headers = { [probe.header]: probe.value(freshAddress(index)) };
          forwarded.set(probe.header, await freshBudgetProbe(a, tokens.first, () => a.get(tokens.first, headers)));
        }
        if (!addressProbe?.conclusive) {
          const status = await b.get(tokens.first);
          addressProbe = { status, conclusive: status !== 'unreachable' && (await a.get(tokens.first)) === 429 };
          if (status === 'unreachable') break;
        }
      }

      const describeProbe = (p: Probe | undefined): string =>
        p === undefined
          ? 'not sent'
          : `${p.status}${p.conclusive ? '' : ` (void: ${addresses.a} was served again right after: a window turned)`}`;
      t.observe(
        'RATE-LIMIT-PER-IP',
        `${addresses.a} served ${served} with token all, then 429; ` +
          `token ${tokens.secondName} from ${addresses.a}: ${describeProbe(tokenProbe)}; ` +
          `token all from ${addresses.b}: ${describeProbe(addressProbe)}; ` +
          [...forwarded].map(([header, p]) => `${header} from ${addresses.a}: ${describeProbe(p)}`).join(', '),
      );
      const problems: string[] = [];
      const unverifiable: string[] = [];
      if (tokenProbe === undefined)
        unverifiable.push(
          `several tokens: needs a second token of the account (${OTHER_TOKENS.map(tokenVariable).join(' or ')})`,
        );
      else if (!tokenProbe.conclusive)
        unverifiable.push(`several tokens: ${ATTEMPTS} attempts voided by a turning window`);
      else if (tokenProbe.status !== 429) {
        problems.push(
          `once ${addresses.a} had spent its budget with token all (${served} served, then 429), ` +
            `token ${tokens.secondName} from the same address was served (${tokenProbe.status}): ` +
            'requests of several tokens from one IP must share one budget (a limiter keyed per token?)',
        );
      }
      if (addressProbe === undefined || addressProbe.status === 'unreachable')
        unverifiable.push(
          `a second address: this machine cannot send from ${addresses.b} ` +
            `(on macOS: sudo ifconfig lo0 alias ${addresses.b} up)`,
        );
      else if (!addressProbe.conclusive)
        unverifiable.push(`a second address: ${ATTEMPTS} attempts voided by a turning window`);
      else if (addressProbe.status === 429) {
        problems.push(
          `while ${addresses.a} was refused, a first request from ${addresses.b} was refused too (429): ` +
            'another client IP must have a budget of its own (one bucket for every client, or one per token?)',
        );
      }
      for (const [header, probe] of forwarded) {
        const problem = judgeForwarded(header, probe.status, probe.conclusive);
        if (problem !== undefined) problems.push(problem);
      }
      if (problems.length > 0) t.fail(problems.join('; '));
      if (unverifiable.length > 0) t.notVerifiable(unverifiable.join('; '));
      const second = addressProbe!.status as number;
      t.ensure(
        second >= 200 && second < 300,
        `a first request from ${addresses.b} answered ${second}, neither served nor refused for rate`,
      );
    },
  );
});

/**
 * Remotely, per kind of unauthenticated request, a probe address and a control address (neither the run's,
 * the k6 runners' nor A's or B's).
 */
const UNAUTHENTICATED_ADDRESSES = [
  { probe: '127.0.0.203', control: '127.0.0.205' },
  { probe: '127.0.0.204', control: '127.0.0.206' },
] as const;

interface Spend {
  /** Unauthenticated requests the probe address sent, and their answers past the budget (the reading). */
  readonly sent: number;
  readonly beyond: readonly Status[];
  readonly rounds: readonly BudgetRound[];
  /** What the rounds show (judgeUnauthenticatedSpend), judged once per round as they come. */
  readonly verdict: SpendVerdict;
}

/**
 * Side by side, in batches of 10: `probe` sends unauthenticated requests (`headers`) while `control` sends
 * valid ones; after each batch both send one valid request together (a round). Up to the probe's first
 * refusal, FRESH_BUDGET_ROUNDS rounds in a row of the control refused and the probe served, or MAX_BURST
 * requests each. Whatever the host's pace, both addresses spend alike: only the credentials differ.
 */
async function spendSideBySide(
  probe: Client,
  control: Client,
  headers: Readonly<Record<string, string>>,
  token: string,
  what: string,
): Promise<Spend | 'unreachable'> {
  const beyond: Status[] = [];
  const rounds: BudgetRound[] = [];
  let sent = 0;
  let verdict: SpendVerdict = { kind: 'no-limit' };
  while (sent < MAX_BURST) {
    const size = Math.min(10, MAX_BURST - sent);
    const [unauthenticated, valid] = await Promise.all([
      Promise.all(Array.from({ length: size }, () => probe.get(undefined, headers))),
      Promise.all(Array.from({ length: size }, () => control.get(token))),
    ]);
    if (unauthenticated.includes('unreachable') || valid.includes('unreachable')) return 'unreachable';
    beyond.push(...unauthenticated.slice(Math.max(0, PER_WINDOW - sent)));
    sent += size;
    const [c, p] = await Promise.all([control.get(token), probe.get(token)]);
    rounds.push({ control: c, probe: p });
    verdict = judgeUnauthenticatedSpend(what, sent, rounds, FRESH_BUDGET_ROUNDS);
    if (verdict.kind === 'counted' || verdict.kind === 'not-counted') break;
  }
  // The reading needs one unauthenticated answer past the budget.
  if (beyond.length === 0) beyond.push(await probe.get(undefined, headers));
  return { sent, beyond, rounds, verdict };
}

describe('Request rate limit, whatever credentials a request carries', () => {
  check(
    'Requests with no token or an unknown one count toward the per-IP budget: spent with them, a valid request ' +
      'is refused too',
    {
      verifies: ['RATE-LIMIT-ALL-ENDPOINTS', 'RATE-LIMIT-RESPONSE-SHAPE'],
      // None from the run's own address: a loopback target gets at most 2 × (MAX_BURST + 22) per kind from
      // 127.0.0.203 to .206, outside the run's budget; a target elsewhere gets nothing.
      requests: 0,
      ownServer: true,
      timeoutMs: 60_000,
    },
    async (t) => {
      let baseUrl: string;
      let token: string;
      let addressesOf: (index: number) => { readonly probe: string; readonly control: string };
      let nextKind = async (): Promise<void> => {};
      if (t.target.kind === 'embedded') {
        // Its limiter's clock stands still; a window passes between the kinds, from the same two addresses.
        const server = await startOwnReference({ host: '127.0.0.1', perWindow: PER_WINDOW, windowMs: 60_000 });
        t.onCleanup(() => server.close());
        baseUrl = server.baseUrl;
        token = server.tokens.all;
        addressesOf = () => ({ probe: EMBEDDED_ADDRESSES.a, control: EMBEDDED_ADDRESSES.b });
        nextKind = () => server.advanceClock(61_000);
      } else {
        const unreachable = secondAddressUnreachable(t.target.baseUrl);
        if (unreachable !== undefined)
          t.notVerifiable(`${unreachable}; from the run's own address it would refuse the run's other checks`);
        if (t.target.tokens.all === undefined) t.notVerifiable('needs TOKEN_ALL (an all-scope token of the account)');
        baseUrl = t.target.baseUrl;
        token = t.target.tokens.all!;
        addressesOf = (index) => UNAUTHENTICATED_ADDRESSES[index]!;
      }
      const problems: string[] = [];
      const unresolved: string[] = [];
      for (const [index, kind] of unauthenticatedRequests.entries()) {
        if (index > 0) await nextKind();
        const addresses = addressesOf(index);
        const probe = client(baseUrl, addresses.probe);
        const control = client(baseUrl, addresses.control);
        t.onCleanup(async () => {
          await probe.close();
          await control.close();
        });
        const spend = await spendSideBySide(probe, control, kind.headers, token, kind.what);
        if (spend === 'unreachable')
          return t.notVerifiable(
            `this machine cannot send from ${probe.address} or ${control.address} ` +
              `(on macOS: sudo ifconfig lo0 alias ${probe.address} up, and the same for ${control.address})`,
          );
        const rounds = spend.rounds.map((r) => `${r.control}/${r.probe}`).join(' ');
        t.observe(
          'RATE-LIMIT-RESPONSE-SHAPE',
          `requests with ${kind.what} from ${probe.address}, past the budget of ${PER_WINDOW}: ` +
            `${unauthenticatedReading(spend.beyond)}; valid requests after each batch ` +
            `(${control.address} spending with valid ones / ${probe.address}): ${rounds}`,
        );
        const { verdict } = spend;
        if (verdict.kind === 'not-counted') problems.push(verdict.problem);
        else if (verdict.kind === 'no-limit')
          unresolved.push(
            `${spend.sent} valid requests from ${control.address} were served: without a limit to spend, what it ` +
              'counts cannot show (RATE-LIMIT-ENFORCED)',
          );
        else if (verdict.kind === 'unresolved')
          unresolved.push(
            `${kind.what}: ${control.address} was refused, but never ${FRESH_BUDGET_ROUNDS} rounds in a row ` +
              `while ${probe.address} was served, nor was ${probe.address} refused`,
          );
      }
      if (problems.length > 0) t.fail(problems.join('; '));
      if (unresolved.length > 0) t.notVerifiable(unresolved.join('; '));
    },
  );
});
