/**
 * k6 probe of the request-rate limit (spec, Limits: "100 requests per minute per IP by
 * default"; requirements RATE-LIMIT-*). Run it with `npm run load:rate-limit` (load/run.ts sets
 * the environment below); k6 v2 runs this TypeScript file as it is.
 *
 *   BASE_URL   API base, …/v1          TOKEN      bearer token (any scope that reads /me, /balance, /agents)
 *   LIMIT      requests per window     WINDOW_MS  window length (60000 against a real target; the
 *                                                 reference server is started with a scaled one)
 *   REPORT_DIR where handleSummary writes k6-rate-limit.json / .junit.xml
 *
 * Timeline (W = WINDOW_MS, L = LIMIT):
 *   setup   a burst of at most 2L + 10 requests until the first refusal, to record the refusal's
 *           shape (status, body, Retry-After, RateLimit-* headers), then one full window of
 *           silence so the next phase starts from a clean slate.
 *   under   constant-arrival-rate at 90 % of L per W for one window → nothing may be refused.
 *   pause   one full window of silence.
 *   over    constant-arrival-rate at 150 % of L per W for two windows → accepted and refused are
 *           counted per window (window = iteration index / (1.5 L): the arrival schedule, not the
 *           clock, so a slow answer can't move a request into the next window). The limit is
 *           estimated as accepted requests per window over the two windows.
 * Requests rotate over GET /me, /balance and /agents, so refusals on each show that one limit
 * counts every endpoint. A probe that could not keep its rate proves nothing: dropped
 * iterations fail it, as do answers other than 2xx and 429.
 *
 * Chart data: accepted and refused requests per second since the start of "under", in the
 * summary JSON (chart.perSecond). k6 only keeps submetrics that thresholds name, so each
 * second's submetric is declared with an empty threshold list.
 */
import http from 'k6/http';
import type { RefinedResponse, ResponseType } from 'k6/http';
import exec from 'k6/execution';
import { sleep } from 'k6';
import { Counter } from 'k6/metrics';
import type { Options } from 'k6/options';
import { positiveInt, text, trimSlash } from './lib/env.ts';
import type { SummaryData, ThresholdMeta } from './lib/junit.ts';
import { buildSummary, declareSubmetrics, value } from './lib/summary.ts';

const BASE_URL = trimSlash(text('BASE_URL'));
const TOKEN = text('TOKEN');
const LIMIT = positiveInt('LIMIT', 100);
const WINDOW_MS = positiveInt('WINDOW_MS', 60_000);
const REQUEST_TIMEOUT_S = 5;
const ENDPOINTS = ['me', 'balance', 'agents'] as const;

const UNDER_PER_WINDOW = Math.max(1, Math.floor(LIMIT * 0.9));
const OVER_PER_WINDOW = Math.ceil(LIMIT * 1.5);
const OVER_WINDOWS = 2;
const OVER_START_MS = 2 * WINDOW_MS;
const TOTAL_MS = OVER_START_MS + OVER_WINDOWS * WINDOW_MS;
const SECONDS = Math.ceil(TOTAL_MS / 1000) + 2;
const TOLERANCE = 0.05;
const ESTIMATE_LOW = Math.ceil(OVER_WINDOWS * LIMIT * (1 - TOLERANCE));
const ESTIMATE_HIGH = Math.floor(OVER_WINDOWS * LIMIT * (1 + TOLERANCE));

const acceptedUnder = new Counter('accepted_under');
const refusedUnder = new Counter('refused_under');
const acceptedOver = new Counter('accepted_over');
const refusedOver = new Counter('refused_over');
const unexpected = new Counter('unexpected_status');
const perSecondAccepted = new Counter('rl_accepted');
const perSecondRefused = new Counter('rl_refused');

function vus(perWindow: number): { preAllocatedVUs: number; maxVUs: number } {
  const perSecond = (perWindow / WINDOW_MS) * 1000;
  // Enough for half a second of in-flight requests up front, and for the whole timeout at most.
  return { preAllocatedVUs: Math.ceil(perSecond * 0.5) + 5, maxVUs: Math.ceil(perSecond * REQUEST_TIMEOUT_S) + 5 };
}

const meta: ThresholdMeta[] = [
  { key: 'dropped_iterations', requirement: 'probe', description: 'every request was sent at its rate (a probe that could not send at its rate proves nothing)' },
  { key: 'unexpected_status', requirement: 'probe', description: 'every answer was a 2xx (served) or a 429 (refused for rate)' },
  { key: 'refused_under', requirement: 'RATE-LIMIT-100-PER-MIN', description: `a client at 90 % of the limit (${UNDER_PER_WINDOW} per ${WINDOW_MS} ms) is never refused` },
  { key: 'accepted_over{window:0}', requirement: 'RATE-LIMIT-100-PER-MIN', description: `at least the limit (${LIMIT}) is served in the first window at 150 %` },
  { key: 'refused_over', requirement: 'RATE-LIMIT-ENFORCED', description: `a client at 150 % of the limit (${OVER_PER_WINDOW} per ${WINDOW_MS} ms) is refused` },
  { key: 'accepted_over', requirement: 'RATE-LIMIT-ENFORCED', description: `the limit estimated over ${OVER_WINDOWS} windows (accepted ÷ ${OVER_WINDOWS}) is within ±5 % of ${LIMIT}` },
  ...ENDPOINTS.map((e) => ({ key: `refused_over{endpoint:${e}}`, requirement: 'RATE-LIMIT-ALL-ENDPOINTS', description: `GET /${e} is refused too: one limit counts every endpoint` })),
];

const thresholds: Record<string, string[]> = {
  dropped_iterations: ['count==0'],
  unexpected_status: ['count==0'],
  refused_under: ['count==0'],
  'accepted_over{window:0}': [`count>=${LIMIT}`],
  refused_over: ['count>0'],
  accepted_over: [`count>=${ESTIMATE_LOW}`, `count<=${ESTIMATE_HIGH}`],
  ...Object.fromEntries(ENDPOINTS.map((e) => [`refused_over{endpoint:${e}}`, ['count>0']])),
};
declareSubmetrics(thresholds, ['accepted_over{window:1}', 'refused_over{window:0}', 'refused_over{window:1}']);
declareSubmetrics(thresholds, Array.from({ length: SECONDS }, (_, s) => `rl_accepted{second:${s}}`));
declareSubmetrics(thresholds, Array.from({ length: SECONDS }, (_, s) => `rl_refused{second:${s}}`));

export const options: Options = {
  setupTimeout: `${2 * WINDOW_MS + 30_000}ms`,
  teardownTimeout: '10s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(95)'],
  scenarios: {
    under: {
      executor: 'constant-arrival-rate',
      exec: 'under',
      rate: UNDER_PER_WINDOW,
      timeUnit: `${WINDOW_MS}ms`,
      duration: `${WINDOW_MS}ms`,
      gracefulStop: `${REQUEST_TIMEOUT_S}s`,
      startTime: '0s',
      ...vus(UNDER_PER_WINDOW),
    },
    over: {
      executor: 'constant-arrival-rate',
      exec: 'over',
      rate: OVER_PER_WINDOW,
      timeUnit: `${WINDOW_MS}ms`,
      duration: `${OVER_WINDOWS * WINDOW_MS}ms`,
      gracefulStop: `${REQUEST_TIMEOUT_S}s`,
      startTime: `${OVER_START_MS}ms`,
      ...vus(OVER_PER_WINDOW),
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

interface SetupData {
  burst: { sent: number; served: number; refusedAfter: number | null; elapsedMs: number };
  refusal: Refusal | null;
}

function get(endpoint: string, phase: string): RefinedResponse<ResponseType | undefined> {
  return http.get(`${BASE_URL}/${endpoint}`, { ...params, tags: { name: `GET /${endpoint}`, phase } });
}

function shape(res: RefinedResponse<ResponseType | undefined>): Refusal {
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(res.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'retry-after' || lower.startsWith('ratelimit') || lower.startsWith('x-ratelimit') || lower === 'content-type') headers[lower] = v;
  }
  const body = typeof res.body === 'string' ? res.body.slice(0, 1000) : '';
  return { status: res.status, body, headers };
}

/** The refusal's shape, from a burst that stops at the first refusal (bounded in count and time). */
export function setup(): SetupData {
  const started = Date.now();
  const maxRequests = 2 * LIMIT + 10;
  let sent = 0;
  let served = 0;
  let refusal: Refusal | null = null;
  while (sent < maxRequests && Date.now() - started < WINDOW_MS) {
    const res = get('me', 'setup');
    sent++;
    if (res.status === 429) {
      refusal = shape(res);
      break;
    }
    if (res.status >= 200 && res.status < 300) served++;
  }
  const elapsedMs = Date.now() - started;
  // One full window of silence: "under" must start with nothing counted against it.
  sleep((WINDOW_MS + 250) / 1000);
  return { burst: { sent, served, refusedAfter: refusal === null ? null : served, elapsedMs }, refusal };
}

function send(phase: 'under' | 'over'): void {
  const i = exec.scenario.iterationInTest;
  const perWindow = phase === 'under' ? UNDER_PER_WINDOW : OVER_PER_WINDOW;
  const window = Math.floor(i / perWindow);
  if (window >= (phase === 'under' ? 1 : OVER_WINDOWS)) return; // the executor's one extra tick
  const endpoint = ENDPOINTS[i % ENDPOINTS.length] as string;
  const origin = phase === 'under' ? exec.scenario.startTime : exec.scenario.startTime - OVER_START_MS;
  const second = String(Math.min(SECONDS - 1, Math.floor((Date.now() - origin) / 1000)));
  const res = get(endpoint, phase);
  const ok = res.status >= 200 && res.status < 300;
  const refused = res.status === 429;
  unexpected.add(ok || refused ? 0 : 1, { status: String(res.status), endpoint });
  perSecondAccepted.add(ok ? 1 : 0, { second });
  perSecondRefused.add(refused ? 1 : 0, { second });
  const tags = { window: String(window), endpoint };
  if (phase === 'under') {
    acceptedUnder.add(ok ? 1 : 0, tags);
    refusedUnder.add(refused ? 1 : 0, tags);
  } else {
    acceptedOver.add(ok ? 1 : 0, tags);
    refusedOver.add(refused ? 1 : 0, tags);
  }
}

export function under(): void {
  send('under');
}

export function over(): void {
  send('over');
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

function analyseWindow(accepted: number[], refused: number[]): WindowAnalysis {
  const start = Math.floor(OVER_START_MS / 1000);
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
  else if (servedAgain === null) model = 'refused and never served again during the probe (a window longer than configured, or a lock-out)';
  else if (mixed > pure) model = 'sliding: once saturated, a few requests are served every second (a steady trickle: sliding counter or token bucket)';
  else model = 'blocks: about the limit is served, then everything is refused until the window turns (a fixed window, or a sliding log under a constant rate)';
  return {
    model,
    firstRefusalSecond: firstRefusal,
    servedAgainAfterRefusal: servedAgain !== null,
    servedAgainAtSecond: servedAgain,
    servedAgainAfterFirstRequestMs: servedAgain === null ? null : servedAgain * 1000 - OVER_START_MS,
    mixedSecondsAfterSaturation: mixed,
    pureSecondsAfterSaturation: pure,
  };
}

export function handleSummary(data: SummaryData & { setup_data?: SetupData }): Record<string, string> {
  const accepted = Array.from({ length: SECONDS }, (_, s) => value(data, `rl_accepted{second:${s}}`));
  const refused = Array.from({ length: SECONDS }, (_, s) => value(data, `rl_refused{second:${s}}`));
  let last = SECONDS;
  while (last > 0 && (accepted[last - 1] ?? 0) === 0 && (refused[last - 1] ?? 0) === 0) last--;
  const perWindow = Array.from({ length: OVER_WINDOWS }, (_, w) => ({
    window: w,
    accepted: value(data, `accepted_over{window:${w}}`),
    refused: value(data, `refused_over{window:${w}}`),
  }));
  const estimate = value(data, 'accepted_over') / OVER_WINDOWS;
  const windowAnalysis = analyseWindow(accepted, refused);
  const setupData = data.setup_data;
  const observations = {
    configured: { limit: LIMIT, windowMs: WINDOW_MS, underPerWindow: UNDER_PER_WINDOW, overPerWindow: OVER_PER_WINDOW },
    estimate: { limit: estimate, windowsUsed: OVER_WINDOWS, perWindow, deviation: estimate - LIMIT, deviationPercent: ((estimate - LIMIT) / LIMIT) * 100 },
    under: { accepted: value(data, 'accepted_under'), refused: value(data, 'refused_under') },
    endpoints: Object.fromEntries(ENDPOINTS.map((e) => [e, { refusedOver: value(data, `refused_over{endpoint:${e}}`) }])),
    'RATE-LIMIT-RESPONSE-SHAPE': setupData === undefined ? null : { refusal: setupData.refusal, burst: setupData.burst },
    'RATE-LIMIT-WINDOW-BEHAVIOUR': windowAnalysis,
    droppedIterations: value(data, 'dropped_iterations'),
    unexpectedStatuses: value(data, 'unexpected_status'),
  };
  const chart = {
    title: 'accepted and refused requests per second across the probe',
    secondZero: 'start of the "under" phase',
    phases: [
      { name: 'under', fromSecond: 0, toSecond: WINDOW_MS / 1000 },
      { name: 'pause', fromSecond: WINDOW_MS / 1000, toSecond: OVER_START_MS / 1000 },
      { name: 'over', fromSecond: OVER_START_MS / 1000, toSecond: TOTAL_MS / 1000 },
    ],
    perSecond: accepted.slice(0, last).map((a, s) => ({ second: s, accepted: a, refused: refused[s] ?? 0 })),
  };
  const refusal = setupData?.refusal;
  const lines = [
    `limit configured ${LIMIT} per ${WINDOW_MS} ms; estimated ${estimate} per window over ${OVER_WINDOWS} windows (${perWindow.map((w) => `${w.accepted} served / ${w.refused} refused`).join(', ')})`,
    `under (90 %): ${value(data, 'accepted_under')} served, ${value(data, 'refused_under')} refused`,
    `refusal: ${refusal ? `${refusal.status} ${refusal.body.slice(0, 120)} retry-after=${refusal.headers['retry-after'] ?? '-'}` : 'none seen in the set-up burst'}`,
    `window: ${windowAnalysis.model}`,
  ];
  return buildSummary('rate-limit', data, meta, { observations, chart, lines });
}
