/**
 * A value the contract returns once ("returned only in this response": the hook secret) never
 * appears again anywhere the target speaks: in any later answer's content or fields, in any
 * delivery (harness/http/one-time-watch.ts watches every exchange and delivery of a worker, at no
 * request of its own; harness/run/tallies.ts merges the workers'). A value is looked for in the
 * worker that learnt it. Judged last, over the whole run. When the run issued no such value or said
 * nothing on a channel after one (a run of a few checks, the self-proof), each check draws one
 * and a message of the channel it judges.
 */
import { describe } from 'vitest';
import { type CheckTools, check } from '../harness/checks/check.ts';
import type { Channel } from '../harness/http/one-time-watch.ts';
import { runTallies } from '../harness/run/tallies.ts';
import { awaitEmitted } from '../harness/seams/emitted-arrivals.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import { NOWHERE } from './data/hooks.ts';

async function judge(t: CheckTools, kind: Channel): Promise<void> {
  const watch = (await runTallies()).oneTime;
  if (watch.watched === 0) t.notVerifiable('the run was given no value the contract returns once');
  if (watch.scanned[kind] === 0) t.notVerifiable(`no ${kind} came after a value returned once`);
  const seen = watch.sightings.filter((s) => s.kind === kind);
  t.observe(
    'HOOKS-SECRET-ONCE',
    `${watch.watched} value(s) returned once, looked for in ${watch.scanned[kind]} ${kind}s`,
  );
  t.ensure(
    seen.length === 0,
    `a value returned once appeared again: ${seen.map((s) => `${s.value} in ${s.where}`).join('; ')}`,
  );
}

describe('Values the contract returns once, on every channel the target speaks on', () => {
  check(
    'No value returned once (the hook secret) appears again in any later answer, content or fields',
    { verifies: ['HOOKS-SECRET-ONCE'], needs: { tokens: ['all'] }, requests: 0 },
    async (t) => {
      if ((await runTallies()).oneTime.scanned.answer === 0) {
        // The sample: one secret, then an answer of each kind the account reads.
        const hook = await subscribe(t, { event: 'call.ended', targetUrl: `${NOWHERE}/one-time-sample` });
        for (const path of ['/me', '/balance', '/agents', '/cdrs'])
          await t.call({ method: 'GET', path, token: t.token('all') });
        await t.call({ method: 'DELETE', path: `/hooks/${hook.id}`, token: t.token('all') });
      }
      await judge(t, 'answer');
    },
  );

  check(
    'No value returned once (the hook secret) appears in any delivery, body or fields',
    {
      verifies: ['HOOKS-SECRET-ONCE'],
      needs: { tokens: ['all'], control: ['event-emitted'], webhooks: true },
      requests: 0,
    },
    async (t) => {
      if ((await runTallies()).oneTime.scanned.delivery === 0) {
        const hook = await subscribe(t, { event: 'call.ended' });
        const emitted = await t.control.emit('call.ended');
        await awaitEmitted(t, hook, [emitted.eventId], 'the one-time sample subscription');
        await t.receiver.deliveries(hook.path);
      }
      await judge(t, 'delivery');
    },
  );
});
