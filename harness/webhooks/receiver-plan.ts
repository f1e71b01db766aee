/**
 * What the receiver is told about a path, checked: the path itself (never under the query API's
 * /_receiver/) and the response plan its deliveries are answered by, with the cursor that walks
 * the plan. Pure; ./receiver.ts re-exports what the rest of the suite uses.
 */

export type PlanStep = { status: number; times?: number } | { hang: true; times?: number };
export type ResponsePlan = PlanStep[];

/** Where the query API lives: a delivery path may not start with it. */
export const CONTROL_PREFIX = '/_receiver/';
export const DEFAULT_PLAN: ResponsePlan = [{ status: 200 }];

export type Check<T> = { ok: true; value: T } | { ok: false; message: string };

export function validatePath(path: unknown): Check<string> {
  if (typeof path !== 'string' || !path.startsWith('/'))
    return { ok: false, message: 'path must be a string starting with /' };
  if (path.length > 512) return { ok: false, message: 'path must be at most 512 characters' };
  if (/[?#\s]/.test(path)) return { ok: false, message: 'path must not contain ?, # or whitespace' };
  if (path === '/_receiver' || path.startsWith(CONTROL_PREFIX))
    return { ok: false, message: 'paths under /_receiver/ are reserved for the query API' };
  return { ok: true, value: path };
}

export function isPositiveInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1;
}

export function validatePlan(plan: unknown): Check<ResponsePlan> {
  if (!Array.isArray(plan) || plan.length === 0 || plan.length > 1000) {
    return { ok: false, message: 'plan must be a non-empty array of at most 1000 steps' };
  }
  const steps: ResponsePlan = [];
  for (const [i, step] of plan.entries()) {
    if (typeof step !== 'object' || step === null) return { ok: false, message: `plan step ${i} must be an object` };
    const s = step as Record<string, unknown>;
    if (s.times !== undefined && !isPositiveInt(s.times))
      return { ok: false, message: `plan step ${i}: times must be an integer >= 1` };
    const times = s.times as number | undefined;
    if (s.hang === true && s.status === undefined) {
      steps.push(times === undefined ? { hang: true } : { hang: true, times });
    } else if (
      typeof s.status === 'number' &&
      Number.isInteger(s.status) &&
      s.status >= 200 &&
      s.status <= 599 &&
      s.hang === undefined
    ) {
      steps.push(times === undefined ? { status: s.status } : { status: s.status, times });
    } else {
      return { ok: false, message: `plan step ${i} must be {status: 200..599, times?} or {hang: true, times?}` };
    }
  }
  return { ok: true, value: steps };
}

export interface PlanCursor {
  plan: ResponsePlan;
  index: number;
  usedInStep: number;
}

/** Consumes one step: steps in order, each `times` (default 1), the last one forever. */
export function takeStep(cursor: PlanCursor): PlanStep {
  const step = cursor.plan[cursor.index] as PlanStep;
  cursor.usedInStep++;
  if (cursor.index < cursor.plan.length - 1 && cursor.usedInStep >= (step.times ?? 1)) {
    cursor.index++;
    cursor.usedInStep = 0;
  }
  return step;
}
