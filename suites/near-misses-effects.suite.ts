/**
 * The near misses of side effects (operators/effects.ts, docs/near-misses.md): a request the
 * target refuses leaves no record of itself (NM-REFUSAL-WITHOUT-EFFECT), and a field the contract
 * calls not persisted or not forwarded leaves no trace in the records of the call that carried it
 * (NM-INERT-FIELD). The refused requests are the near misses the request-shape operators derive;
 * the records are read where the contract lets a client see them: deliveries to a target_url, the
 * call detail records of GET /cdrs.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { describe } from 'vitest';
import type { CdrList } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { codeOf } from '../harness/checks/verdicts.ts';
import type { ProbeRotation } from '../harness/scheduling/budget.ts';
import { familySlice } from '../harness/scheduling/rotation.ts';
import { CALL_GRACE_MS, createCallClock, recordAtEnd } from '../harness/seams/call-clock.ts';
import { awaitEmitted } from '../harness/seams/emitted-arrivals.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import type { Document } from '../operators/document.ts';
import {
  inertFields,
  judgeInertTogether,
  judgeRefusal,
  recordsOfCall,
  refusalProbes,
  type InertField,
  type RefusalProbe,
} from '../operators/effects.ts';
import { stringProbes } from '../operators/strings.ts';
import { openapi } from '../contract/openapi.ts';
import { behaviourTurn, cleanUpCreated } from './rules/near-misses.ts';

const MINUTE_MS = 60_000;
const ALL = refusalProbes(stringProbes(openapi as unknown as Document)).probes;

/** A fictional North American number of its own (555-0100 to 555-0199 are reserved for fiction). */
const fictionalNumber = () => `+1${randomInt(200, 1000)}55501${String(randomInt(0, 100)).padStart(2, '0')}`;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The refused near misses of one operation a remote run sends at the default budget. */
const PER_RUN: Readonly<Record<RefusalProbe['place']['read'], number>> = { deliveries: 2, cdrs: 3, 'the resource': 0 };
/** Requests besides the near misses: the witness subscription and its DELETE; the one GET /cdrs. */
const OVERHEAD: Readonly<Record<RefusalProbe['place']['read'], number>> = { deliveries: 2, cdrs: 1, 'the resource': 0 };

const describeProbe = (p: RefusalProbe) => `${p.nearMiss.element.name} ${p.nearMiss.what}`;

/** The receiver paths a subscription to `url` (or to the same URL trimmed) would be delivered on. */
function pathsOf(url: string): string[] {
  const paths = new Set<string>();
  for (const candidate of [url, url.trim(), url.replace(/\u0000.*$/s, '')]) {
    try {
      paths.add(new URL(candidate).pathname);
    } catch {
      // not a URL at all: nothing could be delivered to it
    }
  }
  return [...paths];
}

/** POST /hooks: each refused near miss aimed at the receiver, then an event of the body's kind. */
async function refusedSubscriptions(t: CheckTools, sent: readonly RefusalProbe[]): Promise<void> {
  const event = 'dnc.added';
  // A subscription of the same kind that must receive the event: then one at a refused target would have too.
  const witness = await subscribe(t, { event });
  const refused: Array<{ probe: RefusalProbe; status: number | undefined; paths: string[] }> = [];
  for (const probe of sent) {
    const seeds: Record<string, string> = {
      event,
      target_url: `${t.target.receiverPublicUrl}/nm/effect/${randomUUID().slice(0, 8)}`,
    };
    const name = probe.nearMiss.element.name;
    const json = { ...seeds, [name]: probe.nearMiss.value(seeds[name] ?? '') };
    const exchange = await t.call({ method: 'POST', path: '/hooks', token: t.token('all'), json });
    await cleanUpCreated(t, exchange);
    refused.push({ probe, status: exchange.status, paths: pathsOf(json.target_url ?? '') });
  }
  const emitted = await t.control.emit(event);
  await awaitEmitted(t, witness, [emitted.eventId], `the ${event} subscription beside the refused ones`);
  await t.control.settle(1_000);
  for (const { probe, status, paths } of refused) {
    const arrived = (await Promise.all(paths.map((path) => t.receiver.deliveries(path)))).flat();
    const problem = judgeRefusal(probe, status, arrived.length);
    t.verify('HOOKS-REFUSED-NO-SUBSCRIPTION', problem === undefined, problem ?? '');
  }
}

/** POST /calls: each refused near miss to a number of its own, then every call placed given time to end. */
async function refusedCalls(t: CheckTools, sent: readonly RefusalProbe[]): Promise<void> {
  const t0 = await t.control.clock();
  const refused: Array<{ probe: RefusalProbe; status: number | undefined; numbers: string[] }> = [];
  for (const probe of sent) {
    const seeds: Record<string, string> = {
      aiAgentId: t.agent('provisioned'),
      toNumber: fictionalNumber(),
      fromNumber: fictionalNumber(),
    };
    const name = probe.nearMiss.element.name;
    const value = probe.nearMiss.value(seeds[name] ?? '');
    const { fromNumber: _optional, ...required } = seeds;
    const json = { ...required, [name]: value };
    const exchange = await t.call({ method: 'POST', path: '/calls', token: t.token('all'), json });
    const numbers = name === 'toNumber' ? [seeds.toNumber!, value] : [seeds.toNumber!];
    refused.push({ probe, status: exchange.status, numbers });
  }
  // A call the target placed anyway ends, and leaves its record, within the suite's patience for a
  // call (call-clock.ts): the grace in real time, then every step of the target's clock.
  await new Promise((resolve) => setTimeout(resolve, CALL_GRACE_MS));
  const clock = createCallClock();
  while (await clock.step(t.control));
  const list = await t.call({
    method: 'GET',
    path: '/cdrs',
    token: t.token('all'),
    query: { from: iso(t0 - MINUTE_MS), limit: '1000' },
  });
  t.expectStatus(list, 200);
  const cdrs = (list.json as CdrList).calls;
  for (const { probe, status, numbers } of refused) {
    const records = new Set(numbers.flatMap((n) => recordsOfCall(cdrs, n)));
    const problem = judgeRefusal(probe, status, records.size);
    t.verify('CALLS-REFUSED-NOT-PLACED', problem === undefined, problem ?? '');
  }
}

describe('Near misses: a refused request has no effect', () => {
  for (const operation of [...new Set(ALL.map((p) => p.operation))]) {
    const probes = ALL.filter((p) => p.operation === operation);
    const read = probes[0]!.place.read;
    const { chosen } = familySlice(probes, PER_RUN[read]);
    const left = probes.filter((p) => !chosen.includes(p));
    const requirement = read === 'deliveries' ? 'HOOKS-REFUSED-NO-SUBSCRIPTION' : 'CALLS-REFUSED-NOT-PLACED';
    const rotation: ProbeRotation | undefined =
      left.length === 0
        ? undefined
        : {
            requirement,
            sent: chosen.length,
            of: probes.length,
            left: left.map(describeProbe),
            leftRequests: left.length,
          };
    check(
      read === 'deliveries'
        ? `near miss (refusals): a refused ${operation} subscribes nothing: an event of its kind reaches none of ` +
            'the refused target_urls'
        : `near miss (refusals): a refused ${operation} places no call: no call detail record of its toNumber appears`,
      {
        verifies: [requirement],
        needs:
          read === 'deliveries'
            ? { tokens: ['all'], control: ['event-emitted'], webhooks: true }
            : { tokens: ['all'], agents: ['provisioned'], control: ['clock-advanced', 'clock'] },
        turn: behaviourTurn(`the refusals of ${operation}`),
        requests: chosen.length + OVERHEAD[read],
        requestsAll: probes.length + OVERHEAD[read],
        ...(rotation === undefined ? {} : { probes: rotation }),
      },
      (t) => {
        if (rotation !== undefined)
          t.observe(
            requirement,
            `request budget: this check sent ${chosen.length} of its ${probes.length} refused near misses ` +
              `(${chosen.map(describeProbe).join('; ')}); later seeds send the others`,
          );
        return read === 'deliveries' ? refusedSubscriptions(t, chosen) : refusedCalls(t, chosen);
      },
    );
  }
});

/** The value each inert field is sent with, and the string of it a record would carry. */
function inertValue(field: InertField): { value: unknown; marker: string } {
  if (field.element.schema.type === 'object') {
    const marker = `occ-inert-${randomUUID().slice(0, 8)}`;
    return { value: { campaign: marker }, marker };
  }
  const number = fictionalNumber();
  return { value: number, marker: number };
}

async function inertFieldsOfCalls(t: CheckTools, fields: readonly InertField[]): Promise<void> {
  const control = t.control;
  const t0 = control.offers('clock') ? await control.clock() : Date.now();
  const sent = fields.map((field) => ({ field, ...inertValue(field) }));
  const base = { aiAgentId: t.agent('provisioned'), toNumber: t.target.destinationNumber };
  const withFields = { ...base, ...Object.fromEntries(sent.map((s) => [s.field.element.name, s.value])) };
  const calls: string[] = [];
  for (const json of [withFields, base]) {
    const exchange = await t.call({ method: 'POST', path: '/calls', token: t.token('all'), json });
    t.ensure(exchange.status === 200, `POST /calls of a valid call: expected 200 queued, got ${codeOf(exchange)}`);
    calls.push((exchange.json as { callId: string }).callId);
  }
  const clock = createCallClock();
  for (const callId of calls) await recordAtEnd(control, callId, clock);
  const list = await t.call({
    method: 'GET',
    path: '/cdrs',
    token: t.token('all'),
    query: { from: iso(t0 - MINUTE_MS), limit: '1000' },
  });
  t.expectStatus(list, 200);
  const records = recordsOfCall((list.json as CdrList).calls, base.toNumber ?? '');
  if (records.length < calls.length)
    return t.notVerifiable(
      `${records.length} call detail record(s) of ${base.toNumber} appeared for the ${calls.length} calls ` +
        'within the wait for them: the records of the two cannot be compared',
    );
  for (const { field, marker } of sent) {
    const verdict = judgeInertTogether(field, marker, records);
    t.observe('CALLS-INERT-FIELDS', `${field.element.name} (${field.words}): ${verdict.reading}`);
    t.verify('CALLS-INERT-FIELDS', verdict.problem === undefined, verdict.problem ?? '');
  }
}

describe('Near misses: a field the contract calls inert leaves no trace', () => {
  for (const operation of [...new Set(inertFields().map((f) => f.element.operation.key))]) {
    const fields = inertFields().filter((f) => f.element.operation.key === operation);
    check(
      `near miss (inert fields): ${fields.map((f) => `${f.element.name} (${f.words})`).join(' and ')} sent in one ` +
        `${operation} and left out of another: the call detail records of the two do not differ by them`,
      {
        verifies: ['CALLS-INERT-FIELDS'],
        needs: { tokens: ['all'], agents: ['provisioned'], originate: true, control: ['call-record'] },
        turn: behaviourTurn(`the inert fields of ${operation}`),
        // The call with them, the one without, one GET /cdrs.
        requests: 3,
      },
      (t) =>
        operation === 'POST /calls'
          ? inertFieldsOfCalls(t, fields)
          : t.fail(`check bug: no way to read the records of ${operation}`),
    );
  }
});
