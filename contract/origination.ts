/**
 * Which POST /calls bodies could make a target dial, read as leniently as a target might read
 * them. One rule, two users: the negative-data property asserts it is false for every body it
 * sends (no generated body may originate a call, even at a target that validates nothing), and
 * the run's gate lets a request whose body cannot originate go without the `webhooks` claim
 * (gate.ts requestClaim): no call, so no call.ended reaching another check's subscription.
 */

/** A toNumber that, stripped of punctuation, is digits a carrier could dial. */
const DIALABLE = /^\+?[1-9][0-9\s().-]{2,}$/;

/**
 * Whether a body could possibly make a lenient target dial: a numeric-string aiAgentId of an
 * existing-looking shape together with a toNumber that, stripped of punctuation, is digits,
 * wherever it is nested (up to three levels).
 */
export function couldOriginate(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object' || depth > 3) return false;
  if (Array.isArray(value)) return value.some((item) => couldOriginate(item, depth + 1));
  const record = value as Record<string, unknown>;
  const { aiAgentId, toNumber } = record;
  if (
    typeof aiAgentId === 'string' &&
    /^\s*[0-9]+\s*$/.test(aiAgentId) &&
    typeof toNumber === 'string' &&
    DIALABLE.test(toNumber.trim())
  )
    return true;
  return Object.values(record).some((item) => couldOriginate(item, depth + 1));
}
