import { describe } from 'vitest';
import type { CallQueued } from '../harness/contract/openapi.ts';
import { check, type CheckTools } from '../harness/suite/check.ts';
import { codeOf, expectError } from '../harness/suite/verdicts.ts';
import type { RequirementId } from '../requirements/catalogue.ts';

/**
 * A valid E.164 number that rings nothing: +1 555 555-01xx is reserved for fiction. Every body
 * a correct target must refuse for another reason carries it, so a broken target that accepts
 * the body still cannot ring a real phone.
 */
const FICTIONAL_E164 = '+15555550123';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METADATA_MARKER = 'conformance-metadata-marker';

async function expectRefused(t: CheckTools, body: { raw?: string; contentType?: string; json?: unknown }, status: number, code: string, what: string): Promise<void> {
  const exchange = await t.call({
    method: 'POST', path: '/calls', token: t.token('write:calls'),
    ...(body.raw === undefined ? { json: body.json } : { body: body.raw, contentType: body.contentType ?? 'application/json' }),
  });
  t.ensure(exchange.status === status, `POST /calls with ${what}: expected ${status} ${code}, got ${codeOf(exchange)}`);
  expectError(t, exchange, status, code);
}

/** Puts the reference into a state for one check and always puts it back. */
async function withAccountState(t: CheckTools, flags: { trunk?: boolean; dialer?: boolean }): Promise<void> {
  await t.control.setAccount('main', flags);
  t.onCleanup(() => t.control.setAccount('main', { trunk: true, dialer: true }));
}

async function withSwitch(t: CheckTools, switches: { originateFails?: boolean; engineNotConfigured?: boolean }): Promise<void> {
  await t.control.setSwitches(switches);
  t.onCleanup(() => t.control.setSwitches({ originateFails: false, engineNotConfigured: false }));
}

/** Where the 502's `detail` sits, for the observation. */
export function detailLocation(body: unknown): string {
  if (body === null || typeof body !== 'object') return 'the body is not an object';
  const b = body as Record<string, unknown>;
  if ('detail' in b) return `a top-level "detail" field (${JSON.stringify(b.detail)})`;
  if (typeof b.message === 'string' && /detail/i.test(b.message)) return `inside message (${JSON.stringify(b.message)})`;
  return `nowhere visible (fields: ${Object.keys(b).join(', ')})`;
}

describe('POST /calls: validation (400 invalid_input)', () => {
  const cases: Array<{ title: string; verifies: RequirementId; bodies: (agent: string) => Array<{ body: { raw?: string; contentType?: string; json?: unknown }; what: string }> }> = [
    { title: 'a body that is not JSON, and JSON that is not an object', verifies: 'CALLS-INVALID-JSON', bodies: (agent) => [
      { body: { raw: `{"aiAgentId": "${agent}", "toNumber": "${FICTIONAL_E164}"` }, what: 'a truncated JSON body' },
      { body: { json: [{ aiAgentId: agent, toNumber: FICTIONAL_E164 }] }, what: 'a JSON array instead of an object' },
    ] },
    { title: 'a body without aiAgentId, and one without toNumber', verifies: 'CALLS-REQUIRED-FIELDS', bodies: (agent) => [
      { body: { json: { toNumber: FICTIONAL_E164 } }, what: 'no aiAgentId' },
      { body: { json: { aiAgentId: agent } }, what: 'no toNumber' },
    ] },
    { title: 'an aiAgentId that is not a numeric string, and one that is a number', verifies: 'CALLS-AGENT-ID-NUMERIC', bodies: (agent) => [
      { body: { json: { aiAgentId: `agent-${agent}`, toNumber: FICTIONAL_E164 } }, what: 'aiAgentId "agent-…"' },
      { body: { json: { aiAgentId: Number(agent), toNumber: FICTIONAL_E164 } }, what: 'aiAgentId as a JSON number' },
    ] },
    // Not E.164 and not dialable either: even a target that skips the check rings nothing.
    { title: 'a toNumber that is not E.164', verifies: 'CALLS-TO-NUMBER-E164', bodies: (agent) => [
      { body: { json: { aiAgentId: agent, toNumber: '555-CALL-ME' } }, what: 'toNumber "555-CALL-ME"' },
    ] },
    { title: 'a fromNumber that is not E.164', verifies: 'CALLS-FROM-NUMBER-E164', bodies: (agent) => [
      { body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, fromNumber: '0044 20 7946 0000' } }, what: 'fromNumber "0044 20 7946 0000"' },
    ] },
    { title: 'a metadata that is not an object', verifies: 'CALLS-METADATA-OBJECT', bodies: (agent) => [
      { body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, metadata: 'campaign=42' } }, what: 'metadata as a string' },
    ] },
  ];
  for (const c of cases) {
    check(`POST /calls answers 400 invalid_input to ${c.title}`, { verifies: [c.verifies, 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'], needs: { tokens: ['write:calls'], agents: ['provisioned'] }, requests: c.bodies('1').length }, async (t) => {
      // The provisioned agent, so that the field under test is the body's only defect.
      for (const { body, what } of c.bodies(t.agent('provisioned'))) await expectRefused(t, body, 400, 'invalid_input', what);
    });
  }
});

describe('POST /calls: agents and account state', () => {
  check('POST /calls answers 404 ai_agent_not_found to an agent id that names no agent', { verifies: ['CALLS-AGENT-NOT-FOUND-404', 'CONTRACT-ERROR-CODE-PER-STATUS'], needs: { tokens: ['write:calls'] }, requests: 1 }, async (t) => {
    await expectRefused(t, { json: { aiAgentId: '999999999999', toNumber: FICTIONAL_E164 } }, 404, 'ai_agent_not_found', 'an unknown aiAgentId');
  });

  check('POST /calls answers 404 ai_agent_not_found to another account\'s agent', { verifies: ['CALLS-AGENT-NOT-FOUND-404'], needs: { tokens: ['write:calls'], agents: ['foreign'] }, requests: 1 }, async (t) => {
    await expectRefused(t, { json: { aiAgentId: t.agent('foreign'), toNumber: FICTIONAL_E164 } }, 404, 'ai_agent_not_found', 'another account\'s agent');
  });

  check('POST /calls answers 409 ai_agent_not_provisioned to an agent without a SIP extension', { verifies: ['CALLS-AGENT-NOT-PROVISIONED-409'], needs: { tokens: ['write:calls'], agents: ['unprovisioned'] }, requests: 1 }, async (t) => {
    await expectRefused(t, { json: { aiAgentId: t.agent('unprovisioned'), toNumber: FICTIONAL_E164 } }, 409, 'ai_agent_not_provisioned', 'an agent without SIP extension');
  });

  check('POST /calls answers 409 account_not_provisioned when the account has no trunk', { verifies: ['CALLS-NOT-PROVISIONED-409'], needs: { tokens: ['write:calls'], agents: ['provisioned'], control: true }, requests: 1 }, async (t) => {
    await withAccountState(t, { trunk: false });
    await expectRefused(t, { json: { aiAgentId: t.agent('provisioned'), toNumber: FICTIONAL_E164 } }, 409, 'account_not_provisioned', 'an account without trunk');
  });

  check('POST /calls answers 409 dialer_required when the account lacks the dialer add-on', { verifies: ['CALLS-DIALER-REQUIRED-409'], needs: { tokens: ['write:calls'], agents: ['provisioned'], control: true }, requests: 1 }, async (t) => {
    await withAccountState(t, { dialer: false });
    await expectRefused(t, { json: { aiAgentId: t.agent('provisioned'), toNumber: FICTIONAL_E164 } }, 409, 'dialer_required', 'an account without the dialer add-on');
  });

  check('POST /calls answers 502 originate_failed when upstream rejects the originate (where its detail sits is recorded)', { verifies: ['CALLS-ORIGINATE-FAILED-502', 'CALLS-ORIGINATE-FAILED-DETAIL'], needs: { tokens: ['write:calls'], agents: ['provisioned'], control: true }, requests: 1 }, async (t) => {
    await withSwitch(t, { originateFails: true });
    const exchange = await t.call({ method: 'POST', path: '/calls', token: t.token('write:calls'), json: { aiAgentId: t.agent('provisioned'), toNumber: FICTIONAL_E164 } });
    t.ensure(exchange.status === 502, `POST /calls when upstream rejects the originate: expected 502 originate_failed, got ${codeOf(exchange)}`);
    expectError(t, exchange, 502, 'originate_failed');
    t.observe('CALLS-ORIGINATE-FAILED-DETAIL', `the 502 carries its detail in ${detailLocation(exchange.json)}`);
  });

  check('POST /calls answers 503 engine_not_configured when origination is unavailable in the environment', { verifies: ['CALLS-ENGINE-NOT-CONFIGURED-503'], needs: { tokens: ['write:calls'], agents: ['provisioned'], control: true }, requests: 1 }, async (t) => {
    await withSwitch(t, { engineNotConfigured: true });
    await expectRefused(t, { json: { aiAgentId: t.agent('provisioned'), toNumber: FICTIONAL_E164 } }, 503, 'engine_not_configured', 'origination unavailable');
  });
});

describe('POST /calls: origination', () => {
  check('POST /calls with a valid fromNumber and metadata answers 200 with a UUID callId and status queued', {
    verifies: ['CALLS-QUEUED', 'CALLS-METADATA-OBJECT', 'CALLS-FROM-NUMBER-E164', 'CALLS-TRANSITIONS', 'CALLS-METADATA-NOT-PERSISTED'],
    needs: { tokens: ['write:calls'], agents: ['provisioned'], originate: true }, requests: 1,
  }, async (t) => {
    const exchange = await t.call({
      method: 'POST', path: '/calls', token: t.token('write:calls'),
      json: { aiAgentId: t.agent('provisioned'), toNumber: t.target.destinationNumber, fromNumber: '+14155550100', metadata: { campaign: METADATA_MARKER, attempt: 1, tags: ['a', 'b'] } },
    });
    t.ensure(exchange.status === 200, `POST /calls with a valid body, a valid fromNumber and metadata: expected 200 queued, got ${codeOf(exchange)}`);
    const queued = exchange.json as CallQueued;
    t.ensure(UUID.test(queued.callId), `callId is ${JSON.stringify(queued.callId)}, must be a UUID`);
    t.ensure(queued.status === 'queued', `status is ${JSON.stringify(queued.status)}, must be queued`);
    if (t.target.controlUrl !== undefined) {
      // The reference's own record of the call (embedded only): what follows queued, and whether metadata stuck.
      let record = await t.control.call(queued.callId);
      for (let i = 0; i < 40 && record?.status !== 'ended'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        record = await t.control.call(queued.callId);
      }
      const timeline = (record?.timeline as Array<{ status: string }> | undefined)?.map((step) => step.status) ?? [];
      t.observe('CALLS-TRANSITIONS', `the call went through: ${timeline.join(' → ') || 'no record'}`);
      t.observe('CALLS-METADATA-NOT-PERSISTED', JSON.stringify(record ?? {}).includes(METADATA_MARKER) ? 'metadata was persisted in the call record' : 'metadata does not appear in the call record');
    }
  });

  // The call.ended correlation is judged on the run's watch of deliveries (webhook-watch.judge.suite.ts).
});
