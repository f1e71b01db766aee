/**
 * Near-miss family "time units" (NM-TIME-UNIT): every duration a target states in an answer is a
 * number of some unit, and a slip of unit (seconds read as milliseconds, a cache's TTL shorter
 * than the lifetime said) keeps every answer's shape while breaking the time it promises. Where
 * the spec's words, or a standard they name, make the duration binding, it is held to on the
 * target's own clock (the control endpoint's `clock-advanced`):
 *
 *   honoured at half of it   the thing it times still works (a token is accepted);
 *   over at its end          recorded: the control protocol lets token expiry run on either the
 *                            virtual clock or real time, so served at its end on the virtual
 *                            clock is a reading, not a failure.
 *
 * A duration the spec makes no promise of is listed with the reason and gets no probe.
 */

export interface StatedDuration {
  /** The field or header that states it. */
  readonly name: string;
  readonly where: 'body' | 'header';
  /** Which answers carry it. */
  readonly answer: string;
  /** Binding: the spec's words, or a standard they name, promise it. */
  readonly binding: boolean;
  /** The words behind it (binding or not). */
  readonly because: string;
}

/** The durations a target of this spec may state, binding or not. */
export const statedDurations: readonly StatedDuration[] = [
  {
    name: 'expires_in',
    where: 'body',
    answer: 'a token answer of {auth_url}/oauth/token',
    binding: true,
    because:
      'the spec: "a short-lived token obtained by OAuth 2.0 `client_credentials`"; OAuth 2.0 (RFC 6749 §5.1): ' +
      'expires_in is "the lifetime in seconds of the access token"',
  },
  {
    name: 'retry-after',
    where: 'header',
    answer: 'a refusal for rate (429)',
    binding: false,
    because:
      'the spec: "Response when the request rate is exceeded: not shown", and it names no standard for it; ' +
      'RFC 9110 §10.2.3 makes Retry-After advice ("how long the user agent ought to wait"), not a promise',
  },
  {
    name: 'ratelimit-reset',
    where: 'header',
    answer: 'any answer under the rate limit',
    binding: false,
    because: 'no sentence of the spec names it; its meaning is a draft of the IETF (RateLimit header fields)',
  },
];

export interface TimeUnitProbe {
  readonly duration: StatedDuration;
  /** When, in ms after the answer on the target's clock. */
  readonly atMs: number;
  readonly expect: 'honoured' | 'over (recorded)';
}

/** The seconds `duration` states in an answer, when it states a positive whole number of them. */
export function statedSeconds(
  duration: StatedDuration,
  answer: { readonly headers: Readonly<Record<string, string>>; readonly json: unknown },
): number | undefined {
  const raw =
    duration.where === 'header'
      ? answer.headers[duration.name]
      : (answer.json as Record<string, unknown> | undefined)?.[duration.name];
  const seconds = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
  return typeof seconds === 'number' && Number.isInteger(seconds) && seconds > 0 ? seconds : undefined;
}

/** The probes of a binding duration of `seconds`: at half of it and at its end. None for a duration not binding. */
export function timeUnitProbes(duration: StatedDuration, seconds: number): TimeUnitProbe[] {
  if (!duration.binding) return [];
  return [
    { duration, atMs: Math.floor((seconds * 1000) / 2), expect: 'honoured' },
    { duration, atMs: seconds * 1000, expect: 'over (recorded)' },
  ];
}

/** The verdict at half of a stated lifetime: what it timed must still work (2xx). undefined when it holds. */
export function judgeAtHalf(duration: StatedDuration, seconds: number, status: number | undefined): string | undefined {
  if (status !== undefined && status >= 200 && status < 300) return undefined;
  return (
    `${duration.name} said ${seconds}, and ${seconds / 2} s later on the target's clock the token was refused ` +
    `(${status ?? 'no answer'}): ${duration.because}, so it must still work at half of it (a unit slip?)`
  );
}

/** What the answer at the end of a stated lifetime shows (either is allowed). */
export function readingAtEnd(duration: StatedDuration, seconds: number, status: number | undefined): string {
  const stated = `${duration.name} ${seconds}`;
  return status === 401
    ? `${stated}: refused (401) at its end on the target's virtual clock: its expiry runs on that clock`
    : `${stated}: still answered ${status ?? 'nothing'} at its end on the target's virtual clock: ` +
        'its expiry runs on real time, or later than said (the control protocol allows either clock)';
}
