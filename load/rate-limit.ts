/**
 * k6 probe of the request-rate limit (spec, Limits: "100 requests per minute per IP by
 * default"; requirements RATE-LIMIT-*). Run it with `npm run load:rate-limit` (load/run.ts sets
 * the environment below); k6 v2 runs this TypeScript file as it is.
 *
 *   BASE_URL   API base, …/v1          TOKEN      bearer token (any scope that reads /me, /balance, /agents)
 *   LIMIT      requests per window     WINDOW_MS  window length (60000 against a real target; the
 *                                                 reference server is started with a scaled one)
 *   REPORT_DIR where handleSummary writes k6-rate-limit.json / .junit.xml
 *   UNDER_AT_MS  when "under" may start (epoch ms; load/run.ts: late enough after what this machine
 *              sent the target, lib/probe-shape.ts underStartMs); default a window from the set-up
 *   TOKEN_2    optional: another token of the account (GET /me accepts any): RATE-LIMIT-PER-IP
 *   RUNNERS    optional: N cooperating runners (./lib/runners.ts), each with its execution segment
 *              and source address; each writes k6-rate-limit.runner-<i>-of-<N>.json for the merge
 *   SOURCE_ADDRESS  optional: the address this runner sends from, for the merged report
 *
 * Timeline (W = WINDOW_MS, L = LIMIT), in as few windows as the verdict needs:
 *   quiet   nothing until UNDER_AT_MS, so that "under" starts from a clean slate. With N runners the
 *           set-up first spends runner 1's budget and has runners 2…N send from fresh addresses
 *           (./lib/runners.ts), then a whole window of silence; one runner alone leaves that half of
 *           RATE-LIMIT-PER-IP not verifiable (one process is one address).
 *   under   90 % of L per W for one window, on a fixed schedule → nothing may be refused.
 *   burst   at once, four sends per slot of "over", until the first refusal (at most 2L + 10): the
 *           refusal's shape (status, body, Retry-After, RateLimit-* headers); then TOKEN_2 from the
 *           same address, four tries back to back, of which at least one must be refused too (one
 *           budget per IP, not per token), with TOKEN right after (still refused, or the window
 *           turned and the pair is void).
 *   over    one VU sends at 150 % of L per W on a fixed schedule until ./lib/windows.ts has measured a
 *           window (about one window; at most 1.75), every answer kept with its send time. The spec
 *           does not say sliding or fixed: the window measured is the window's time before a refusal a
 *           window after the first refusal, or before a fixed window's turn (./lib/windows.ts says why
 *           both hold the limit in every reading). Only what the spec states fails: fewer than L
 *           served in it, or no refusal above L (and, since L is the configured limit, more than L +
 *           5 % in it).
 * "under" and the burst run in the set-up: its data carries their samples to the "over" scenario, which
 * starts as the set-up ends, and the refusal's shape to the summary.
 * Requests rotate over GET /me, /balance and /agents, so refusals on each show that one limit
 * counts every endpoint. A probe that could not keep its rate proves nothing: late sends fail it,
 * as do answers other than 2xx and 429.
 *
 * Chart data: accepted and refused requests per second since the start of "under", in the
 * summary JSON (chart.perSecond). k6 only keeps submetrics that thresholds name, so each
 * second's submetric is declared with an empty threshold list.
 */
import http from 'k6/http';
import type { RefinedResponse, ResponseType } from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { Counter, Gauge, Rate } from 'k6/metrics';
import type { Options } from 'k6/options';
import { positiveInt, text, trimSlash } from './lib/env.ts';
import type { SummaryData, ThresholdMeta } from './lib/junit.ts';
import { buildSummary, declareSubmetrics, value } from './lib/summary.ts';
import { rateLimitShape } from './lib/probe-shape.ts';
import { analyseWindows, LIMIT_TOLERANCE, phaseDecided, type Sample } from './lib/windows.ts';
import { perIpTimeline, runnerIndex, runnerSummaryName, type PerIpRecord, type Stamp } from './lib/runners.ts';

const BASE_URL = trimSlash(text('BASE_URL'));
const TOKEN = text('TOKEN');
const LIMIT = positiveInt('LIMIT', 100);
const WINDOW_MS = positiveInt('WINDOW_MS', 60_000);
const REQUEST_TIMEOUT_S = 5;
const ENDPOINTS = ['me', 'balance', 'agents'] as const;
const TOKEN_2 = text('TOKEN_2', '');
/** Tries of TOKEN_2 once the address is refused: more than the slots a limiter frees meanwhile. */
const OTHER_TOKEN_TRIES = 4;
/** N runners together: every scenario below is N × one address's load, and k6 gives each runner its segment. */
const RUNNERS = positiveInt('RUNNERS', 1);
const SOURCE_ADDRESS = text('SOURCE_ADDRESS', '');
/** Local runners start their set-ups at this instant (epoch ms), so that their timelines line up. */
const START_AT_MS = Number(text('START_AT_MS', '0'));
/** When "under" may start (epoch ms); 0: a window after the set-up begins. */
const UNDER_AT_MS = Number(text('UNDER_AT_MS', '0'));
const TIMELINE = perIpTimeline(WINDOW_MS, RUNNERS);

// The phases (and so the request count --dry-run --with-load gives) come from one place.
const SHAPE = rateLimitShape(LIMIT, WINDOW_MS);
const UNDER_PER_WINDOW = SHAPE.underPerWindow;
const OVER_PER_WINDOW = SHAPE.overPerWindow;
const OVER_MS = SHAPE.overMs;
/** The burst sends four times per slot of "over": it saturates at once, and its room comes back over a slot or so. */
const BURST_PACE_MS = SHAPE.slotMs / 4;
/** "under", the longest burst and "over": the chart's seconds. */
const TOTAL_MS = WINDOW_MS + SHAPE.setupMaxRequests * BURST_PACE_MS + OVER_MS;
const SECONDS = Math.ceil(TOTAL_MS / 1000) + 2;
const SLOT_MS = SHAPE.slotMs;
/** A send this far behind its schedule means the probe could not keep its rate. */
const LATE_MS = WINDOW_MS / 4;
const MODELS = ['blocks', 'trickle', 'no refusal'] as const;
const MAX_WINDOWS = 3;

const acceptedUnder = new Counter('accepted_under');
const refusedUnder = new Counter('refused_under');
const acceptedOver = new Counter('accepted_over');
const refusedOver = new Counter('refused_over');
const unexpected = new Counter('unexpected_status');
// Status 0: k6 got no answer (refused, reset, timed out). The network's, never the target's: the
// probe's count has a hole, so the probe proves nothing (harness/http/transport.ts for the suite).
const networkFailures = new Counter('network_failures');
const perSecondAccepted = new Counter('rl_accepted');
const perSecondRefused = new Counter('rl_refused');
const windowsUnderLimit = new Counter('windows_under_limit');
const windowsOverLimit = new Counter('windows_over_limit');
const windowsMeasured = new Counter('windows_measured');
const servedPerWindow = new Counter('served_per_window');
const lateRequests = new Counter('late_requests');
const model = new Counter('window_model');
const estimateGauge = new Gauge('limit_estimate');
const otherTokenRefused = new Rate('other_token_refused');
const overCompleted = new Counter('over_completed');

const meta: ThresholdMeta[] = [
  {
    key: 'unexpected_status',
    requirement: 'probe',
    description: 'every answer was a 2xx (served) or a 429 (refused for rate)',
  },
  {
    key: 'network_failures',
    requirement: 'probe',
    description: 'no request was lost to the network (refused, reset or timed out: status 0), so every one was counted',
  },
  {
    key: 'refused_under',
    requirement: 'RATE-LIMIT-100-PER-MIN',
    description: `a client at 90 % of the limit (${UNDER_PER_WINDOW} per ${WINDOW_MS} ms) is never refused`,
  },
  {
    key: 'late_requests',
    requirement: 'probe',
    description:
      `every request of the 90 % and 150 % phases was sent within ${LATE_MS} ms of its schedule ` +
      '(a probe that could not send at its rate proves nothing)',
  },
  {
    key: 'windows_measured',
    requirement: 'probe',
    description:
      'a window was measured at 150 %: before a refusal a window after the first one, or before a window turned',
  },
  {
    key: 'windows_under_limit',
    requirement: 'RATE-LIMIT-100-PER-MIN',
    description: `the window measured at 150 % served at least the limit (${LIMIT}, −5 %), sliding or fixed`,
  },
  {
    key: 'other_token_refused',
    requirement: 'RATE-LIMIT-PER-IP',
    description:
      'once the address had spent its budget with one token, another token of the account from it ' +
      'was refused too: one budget per IP, not per token',
  },
  {
    key: 'refused_over',
    requirement: 'RATE-LIMIT-ENFORCED',
    description: `a client at 150 % of the limit (${OVER_PER_WINDOW} per ${WINDOW_MS} ms) is refused`,
  },
  {
    key: 'windows_over_limit',
    requirement: 'RATE-LIMIT-ENFORCED',
    description: `the window measured at 150 % served no more than the configured limit ${LIMIT} + 5 %`,
  },
  ...ENDPOINTS.map((e) => ({
    key: `refused_over{endpoint:${e}}`,
    requirement: 'RATE-LIMIT-ALL-ENDPOINTS',
    description: `GET /${e} is refused too: one limit counts every endpoint`,
  })),
];

const thresholds: Record<string, string[]> = {
  unexpected_status: ['count==0'],
  network_failures: ['count==0'],
  refused_under: ['count==0'],
  late_requests: ['count==0'],
  windows_measured: ['count>0'],
  windows_under_limit: ['count==0'],
  other_token_refused: ['rate==1'],
  refused_over: ['count>0'],
  windows_over_limit: ['count==0'],
  ...Object.fromEntries(ENDPOINTS.map((e) => [`refused_over{endpoint:${e}}`, ['count>0']])),
};
declareSubmetrics(
  thresholds,
  Array.from({ length: MAX_WINDOWS }, (_, w) => `served_per_window{window:${w}}`),
);
declareSubmetrics(
  thresholds,
  MODELS.map((m) => `window_model{model:${m}}`),
);
declareSubmetrics(
  thresholds,
  Array.from({ length: SECONDS }, (_, s) => `rl_accepted{second:${s}}`),
);
declareSubmetrics(
  thresholds,
  Array.from({ length: SECONDS }, (_, s) => `rl_refused{second:${s}}`),
);

export const options: Options = {
  // The quiet wait, "under", the burst and the start of "over" (./lib/runners.ts adds the runners' set-up).
  setupTimeout: `${3 * WINDOW_MS + TIMELINE.setupEndMs + OVER_MS + 30_000}ms`,
  teardownTimeout: '10s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(95)'],
  scenarios: {
    // One VU per runner on a fixed schedule: the verdict needs every answer in send order.
    over: {
      executor: 'per-vu-iterations',
      exec: 'over',
      vus: RUNNERS,
      iterations: 1,
      maxDuration: `${OVER_MS + 2 * REQUEST_TIMEOUT_S * 1000}ms`,
      gracefulStop: `${REQUEST_TIMEOUT_S}s`,
      startTime: '0s',
    },
  },
  thresholds,
};

const params = {
  headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json' },
  timeout: `${REQUEST_TIMEOUT_S}s`,
  responseCallback: http.expectedStatuses({ min: 200, max: 299 }, 429),
};

interface Refusal {
  status: number;
  body: string;
  headers: Record<string, string>;
}

interface Burst {
  sent: number;
  served: number;
  refusedAfter: number | null;
  elapsedMs: number;
}

interface SetupData {
  burst: Burst;
  refusal: Refusal | null;
  perIp: PerIpRecord;
  /** When "under" began (epoch ms): the origin of the samples and of the chart's seconds. */
  originMs: number;
  /** "under" and the burst, in send order (ms since originMs). */
  samples: Sample[];
  /** The burst's first sample: refusals before it are "under"'s. */
  burstIndex: number;
  /** When "over" is due to begin (ms since originMs). */
  overAtMs: number;
}

function get(endpoint: string, phase: string, token = TOKEN): RefinedResponse<ResponseType | undefined> {
  const headers = token === TOKEN ? params.headers : { ...params.headers, Authorization: `Bearer ${token}` };
  return http.get(`${BASE_URL}/${endpoint}`, { ...params, headers, tags: { name: `GET /${endpoint}`, phase } });
}

/** This runner's place among the N (its execution segment) and the address it sends from. */
function runner(): { index: number; count: number; address: string | null } {
  const options = exec.test.options as {
    executionSegment?: string | null;
    executionSegmentSequence?: string | null;
    localIPs?: string | null;
  };
  const { index, count } = runnerIndex(options.executionSegment, options.executionSegmentSequence);
  if (count !== RUNNERS) {
    throw new Error(`RUNNERS=${RUNNERS} but the execution segment ${options.executionSegment} is one of ${count}`);
  }
  return { index, count, address: SOURCE_ADDRESS !== '' ? SOURCE_ADDRESS : (options.localIPs ?? null) };
}

function stamp(endpoint: string, phase: string): Stamp {
  const atMs = Date.now();
  return { atMs, status: get(endpoint, phase).status };
}

function sleepUntil(epochMs: number): void {
  const wait = epochMs - Date.now();
  if (wait > 0) sleep(wait / 1000);
}

function shape(res: RefinedResponse<ResponseType | undefined>): Refusal {
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(res.headers)) {
    const lower = name.toLowerCase();
    if (
      lower === 'retry-after' ||
      lower.startsWith('ratelimit') ||
      lower.startsWith('x-ratelimit') ||
      lower === 'content-type'
    )
      headers[lower] = v;
  }
  const body = typeof res.body === 'string' ? res.body.slice(0, 1000) : '';
  return { status: res.status, body, headers };
}

/**
 * Requests as fast as the pace allows until the first refusal (bounded in count and time): the
 * refusal's shape; with `samples`, every answer kept (ms since `originMs`).
 */
function spendBudget(
  samples?: Sample[],
  originMs = 0,
): { burst: Burst; refusal: Refusal | null; startedAt: number; refusedAtMs: number | null } {
  const started = Date.now();
  let sent = 0;
  let served = 0;
  let refusal: Refusal | null = null;
  let refusedAtMs: number | null = null;
  while (sent < SHAPE.setupMaxRequests && Date.now() - started < WINDOW_MS) {
    sleepUntil(started + sent * BURST_PACE_MS);
    const at = Date.now();
    const res = get('me', 'setup');
    sent++;
    const ok = res.status >= 200 && res.status < 300;
    countAnswer(res.status, ok, 'me');
    samples?.push({ atMs: at - originMs, served: ok, refused: res.status === 429 });
    if (res.status === 429) {
      refusal = shape(res);
      refusedAtMs = at;
      break;
    }
    if (ok) served++;
  }
  const burst = { sent, served, refusedAfter: refusal === null ? null : served, elapsedMs: Date.now() - started };
  return { burst, refusal, startedAt: started, refusedAtMs };
}

/**
 * Another token of the account from the same address once it is refused, a few times back to back,
 * then the first one again: the pair counts only when that one is still refused (else a window
 * turned in between), and the other token counts as refused when any of its tries was. A sliding
 * window or a token bucket frees a slot now and then, which one try of the other token may take
 * (the first token's trailing try is then refused, rightly); a limiter keyed by token serves all.
 */
function otherTokenPair(): PerIpRecord['otherToken'] {
  if (TOKEN_2 === '') return null;
  const statuses = Array.from({ length: OTHER_TOKEN_TRIES }, () => get('me', 'setup', TOKEN_2).status);
  const trailing = get('me', 'setup').status;
  const status = statuses.includes(429) ? 429 : statuses[0]!;
  if (trailing === 429) otherTokenRefused.add(status === 429);
  return { status, statuses, trailing };
}

/** "under": 90 % of the limit for one window on a fixed schedule; every answer kept (ms since its start). */
function under(samples: Sample[]): number {
  const started = Date.now();
  const slot = WINDOW_MS / UNDER_PER_WINDOW;
  let late = 0;
  for (let i = 0; i < UNDER_PER_WINDOW; i++) {
    const wait = started + i * slot - Date.now();
    if (wait > 0) sleep(wait / 1000);
    else if (-wait > LATE_MS) late++;
    const atMs = Date.now() - started;
    samples.push({ atMs, ...send('under', i, started) });
  }
  sleepUntil(started + WINDOW_MS);
  return late;
}

/**
 * The quiet wait (with N runners: the staggered per-IP set-up, ./lib/runners.ts, then a window of
 * silence), "under", and the burst that saturates the limiter: its refusal's shape, and the per-IP pair.
 */
export function setup(): SetupData {
  sleepUntil(START_AT_MS);
  const setupStart = Date.now();
  const me = runner();
  let fresh: Stamp | null = null;
  let stillRefused: Stamp | null = null;
  let staggered: ReturnType<typeof spendBudget> | undefined;
  let otherToken: PerIpRecord['otherToken'] = null;
  if (me.count > 1) {
    // Runners 2…N: one request from a fresh address while runner 1 (having spent its budget) is refused.
    if (me.index > 0) {
      sleepUntil(setupStart + TIMELINE.staggerMs);
      fresh = stamp('me', 'setup');
    }
    staggered = spendBudget();
    if (staggered.refusal !== null) otherToken = otherTokenPair();
    if (me.index === 0) {
      sleepUntil(setupStart + TIMELINE.stillRefusedAtMs);
      stillRefused = stamp('me', 'setup');
    }
    // A window of silence: "under" starts with nothing counted against it, all runners together.
    sleepUntil(Math.max(Date.now() + WINDOW_MS + 250, setupStart + TIMELINE.setupEndMs));
  } else {
    sleepUntil(UNDER_AT_MS > 0 ? UNDER_AT_MS : setupStart + WINDOW_MS);
  }
  const originMs = Date.now();
  const samples: Sample[] = [];
  lateRequests.add(under(samples));
  const burstIndex = samples.length;
  const spent = spendBudget(samples, originMs);
  if (me.count === 1 && spent.refusal !== null) otherToken = otherTokenPair();
  const perIpBurst = staggered ?? spent;
  const perIp: PerIpRecord = {
    runner: me.index,
    runners: me.count,
    address: me.address,
    burstStartedAtMs: perIpBurst.startedAt,
    refusedAtMs: perIpBurst.refusedAtMs,
    otherToken,
    fresh,
    stillRefused,
  };
  return {
    burst: spent.burst,
    refusal: spent.refusal ?? staggered?.refusal ?? null,
    perIp,
    originMs,
    samples,
    burstIndex,
    overAtMs: Date.now() - originMs,
  };
}

/** An answer that is neither served nor refused for rate: the network's (status 0) or the target's. */
function countAnswer(status: number, served: boolean, endpoint: string): void {
  networkFailures.add(status === 0 ? 1 : 0, { endpoint });
  unexpected.add(served || status === 429 || status === 0 ? 0 : 1, { status: String(status), endpoint });
}

/** One request, counted: whether it was served (2xx) or refused (429). */
function send(phase: 'under' | 'over', i: number, underOrigin: number): { served: boolean; refused: boolean } {
  const endpoint = ENDPOINTS[i % ENDPOINTS.length] as string;
  const second = String(Math.min(SECONDS - 1, Math.floor((Date.now() - underOrigin) / 1000)));
  const res = get(endpoint, phase);
  const served = res.status >= 200 && res.status < 300;
  const refused = res.status === 429;
  countAnswer(res.status, served, endpoint);
  perSecondAccepted.add(served ? 1 : 0, { second });
  perSecondRefused.add(refused ? 1 : 0, { second });
  const tags = { endpoint };
  if (phase === 'under') {
    acceptedUnder.add(served ? 1 : 0, tags);
    refusedUnder.add(refused ? 1 : 0, tags);
  } else {
    acceptedOver.add(served ? 1 : 0, tags);
    refusedOver.add(refused ? 1 : 0, tags);
  }
  return { served, refused };
}

/**
 * The 150 % phase: every answer kept with its send time, until a window is measured (bounded), then
 * the verdict of ./lib/windows.ts over "under", the burst and this phase.
 */
export function over(data: SetupData): void {
  const started = Date.now();
  const origin = data.originMs;
  const samples: Sample[] = [...data.samples];
  const unrefused = new Set<string>(ENDPOINTS);
  let late = 0;
  for (let i = 0; (i + 1) * SLOT_MS <= OVER_MS; i++) {
    const due = started + i * SLOT_MS;
    const wait = due - Date.now();
    if (wait > 0) sleep(wait / 1000);
    else if (-wait > LATE_MS) late++;
    const atMs = Date.now() - origin;
    const sent = send('over', i, origin);
    samples.push({ atMs, ...sent });
    if (sent.refused) unrefused.delete(ENDPOINTS[i % ENDPOINTS.length] as string);
    // Once a window is measured and every endpoint was refused (RATE-LIMIT-ALL-ENDPOINTS).
    if (unrefused.size === 0 && phaseDecided(samples, WINDOW_MS, OVER_PER_WINDOW, data.burstIndex)) break;
  }
  lateRequests.add(late);
  const verdict = analyseWindows(samples, LIMIT, WINDOW_MS, LIMIT_TOLERANCE, OVER_PER_WINDOW, data.burstIndex);
  windowsUnderLimit.add(verdict.windowsUnderLimit);
  windowsOverLimit.add(verdict.windowsOverLimit);
  windowsMeasured.add(verdict.windowsUsed);
  estimateGauge.add(verdict.estimate);
  for (const m of MODELS) model.add(verdict.model === m ? 1 : 0, { model: m });
  for (const [w, served] of verdict.servedPerWindow.slice(0, MAX_WINDOWS).entries()) {
    servedPerWindow.add(served, { window: String(w) });
  }
  // A runner stopped before this line did not finish its phases: the merge makes the verdict not run.
  overCompleted.add(1);
}

export default function (): void {
  // Every scenario names its exec function; nothing runs here.
}

interface WindowAnalysis {
  model: string;
  firstRefusalSecond: number | null;
  servedAgainAfterRefusal: boolean;
  servedAgainAtSecond: number | null;
  servedAgainAfterFirstRequestMs: number | null;
  mixedSecondsAfterSaturation: number;
  pureSecondsAfterSaturation: number;
}

function analyseWindow(accepted: number[], refused: number[], overStartMs: number): WindowAnalysis {
  const start = Math.floor(overStartMs / 1000);
  const end = Math.min(accepted.length, Math.ceil(TOTAL_MS / 1000));
  let firstRefusal: number | null = null;
  let servedAgain: number | null = null;
  let mixed = 0;
  let pure = 0;
  for (let s = start; s < end; s++) {
    const a = accepted[s] ?? 0;
    const r = refused[s] ?? 0;
    if (firstRefusal === null && r > 0) firstRefusal = s;
    if (firstRefusal !== null && s > firstRefusal) {
      if (servedAgain === null && a > 0 && (refused[s - 1] ?? 0) > 0) servedAgain = s;
      const minority = Math.min(a, r) / Math.max(1, a + r);
      if (minority >= 0.15) mixed++;
      else pure++;
    }
  }
  let model: string;
  if (firstRefusal === null) model = 'no refusal seen at 150 % of the limit: no window observed';
  else if (servedAgain === null)
    model = 'refused and never served again during the probe (a window longer than configured, or a lock-out)';
  else if (mixed > pure)
    model =
      'sliding: once saturated, a few requests are served every second ' +
      '(a steady trickle: sliding counter or token bucket)';
  else
    model =
      'blocks: about the limit is served, then everything is refused until the window turns ' +
      '(a fixed window, or a sliding log under a constant rate)';
  return {
    model,
    firstRefusalSecond: firstRefusal,
    servedAgainAfterRefusal: servedAgain !== null,
    servedAgainAtSecond: servedAgain,
    servedAgainAfterFirstRequestMs: servedAgain === null ? null : servedAgain * 1000 - overStartMs,
    mixedSecondsAfterSaturation: mixed,
    pureSecondsAfterSaturation: pure,
  };
}

export function handleSummary(data: SummaryData & { setup_data?: SetupData }): Record<string, string> {
  const accepted = Array.from({ length: SECONDS }, (_, s) => value(data, `rl_accepted{second:${s}}`));
  const refused = Array.from({ length: SECONDS }, (_, s) => value(data, `rl_refused{second:${s}}`));
  let last = SECONDS;
  while (last > 0 && (accepted[last - 1] ?? 0) === 0 && (refused[last - 1] ?? 0) === 0) last--;
  const windowModel = MODELS.find((m) => value(data, `window_model{model:${m}}`) > 0) ?? 'not measured';
  const windowsUsed = value(data, 'windows_measured');
  const perWindow = Array.from({ length: Math.min(MAX_WINDOWS, windowsUsed) }, (_, w) => ({
    window: w,
    served: value(data, `served_per_window{window:${w}}`),
  }));
  const estimate = value(data, 'limit_estimate', 'value');
  const overStartMs = data.setup_data?.overAtMs ?? WINDOW_MS;
  const windowAnalysis = analyseWindow(accepted, refused, overStartMs);
  const setupData = data.setup_data;
  const observations = {
    configured: { limit: LIMIT, windowMs: WINDOW_MS, underPerWindow: UNDER_PER_WINDOW, overPerWindow: OVER_PER_WINDOW },
    estimate: {
      limit: estimate,
      model: windowModel,
      windowsUsed,
      perWindow,
      deviation: estimate - LIMIT,
      deviationPercent: ((estimate - LIMIT) / LIMIT) * 100,
    },
    over: {
      accepted: value(data, 'accepted_over'),
      refused: value(data, 'refused_over'),
      late: value(data, 'late_requests'),
    },
    under: { accepted: value(data, 'accepted_under'), refused: value(data, 'refused_under') },
    endpoints: Object.fromEntries(
      ENDPOINTS.map((e) => [e, { refusedOver: value(data, `refused_over{endpoint:${e}}`) }]),
    ),
    'RATE-LIMIT-RESPONSE-SHAPE':
      setupData === undefined ? null : { refusal: setupData.refusal, burst: setupData.burst },
    'RATE-LIMIT-WINDOW-BEHAVIOUR': windowAnalysis,
    'RATE-LIMIT-PER-IP': setupData?.perIp ?? null,
    unexpectedStatuses: value(data, 'unexpected_status'),
    networkFailures: value(data, 'network_failures'),
  };
  const chart = {
    title: 'accepted and refused requests per second across the probe',
    secondZero: 'start of the "under" phase',
    phases: [
      { name: 'under', fromSecond: 0, toSecond: WINDOW_MS / 1000 },
      { name: 'burst', fromSecond: WINDOW_MS / 1000, toSecond: overStartMs / 1000 },
      { name: 'over', fromSecond: overStartMs / 1000, toSecond: last },
    ],
    perSecond: accepted.slice(0, last).map((a, s) => ({ second: s, accepted: a, refused: refused[s] ?? 0 })),
  };
  const refusal = setupData?.refusal;
  const windowsFound =
    perWindow.length > 0
      ? `: ${perWindow.map((w) => `${w.served} served`).join(', ')} in the window measured at 150 %`
      : '';
  const refusalSeen = refusal
    ? `${refusal.status} ${refusal.body.slice(0, 120)} retry-after=${refusal.headers['retry-after'] ?? '-'}`
    : 'none seen in the set-up burst';
  const lines = [
    `limit configured ${LIMIT} per ${WINDOW_MS} ms; ` +
      `estimated ${estimate.toFixed(1)} per window (${windowModel}${windowsFound})`,
    `under (90 %): ${value(data, 'accepted_under')} served, ${value(data, 'refused_under')} refused`,
    `refusal: ${refusalSeen}`,
    `window: ${windowAnalysis.model}`,
  ];
  const perIp = setupData?.perIp;
  const who =
    perIp === undefined ? summaryRunner() : { index: perIp.runner, count: perIp.runners, address: perIp.address };
  const other = perIp?.otherToken;
  const tokenLine =
    other == null
      ? `no second token (TOKEN_2)${TOKEN_2 === '' ? ' given' : ' sent: no refusal to test it against'}`
      : `TOKEN_2 after the budget was spent: ${(other.statuses ?? [other.status]).join(', ')}` +
        `${other.trailing === 429 ? '' : ' (void: window turned)'}`;
  const runnerLine =
    who.count > 1
      ? `; runner ${who.index + 1} of ${who.count}${who.address === null ? '' : ` from ${who.address}`}`
      : '';
  lines.push(`per IP: ${tokenLine}${runnerLine}`);
  return buildSummary('rate-limit', data, meta, {
    observations,
    chart,
    lines,
    // One process is one source address: the second-address half needs N runners (their merge decides it).
    ...(who.count === 1 ? { notVerifiable: { 'RATE-LIMIT-PER-IP': SECOND_ADDRESS_ALONE } } : {}),
    extra: { runner: who, completed: value(data, 'over_completed') >= 1, perIp: perIp ?? null },
    ...(who.count > 1 ? { fileStem: runnerSummaryName('rate-limit', who.index, who.count) } : {}),
  });
}

const SECOND_ADDRESS_ALONE =
  'a second client address: one k6 runner is one source address; ' +
  'runners on several addresses decide it (occ load rate-limit --runners 2 or more on loopback, ' +
  'or a k6-operator TestRun: docs/load-distributed.md)';

/** The runner's identity when set-up data is missing (a set-up that failed or was stopped). */
function summaryRunner(): { index: number; count: number; address: string | null } {
  try {
    return runner();
  } catch {
    return { index: 0, count: RUNNERS, address: SOURCE_ADDRESS === '' ? null : SOURCE_ADDRESS };
  }
}
