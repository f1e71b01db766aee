import { describe } from 'vitest';
import type { CallQueued } from '../contract/openapi.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { watchOriginates } from '../harness/seams/event-watch.ts';
import { createCallClock, recordAtEnd } from '../harness/seams/call-clock.ts';
import { session } from '../harness/run/session.ts';
import { probeRotation, probesForRun, probesPlanned, wayOf } from '../harness/scheduling/rotation.ts';
import { codeOf, expectError } from '../harness/checks/verdicts.ts';
import { callValidationProbes, FICTIONAL_E164 } from './data/calls.ts';
import { detailLocation } from './rules/calls.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METADATA_MARKER = 'conformance-metadata-marker';

async function expectRefused(
  t: CheckTools,
  body: { raw?: string; contentType?: string; json?: unknown },
  status: number,
  code: string,
  what: string,
): Promise<void> {
  const exchange = await t.call({
    method: 'POST',
    path: '/calls',
    token: t.token('write:calls'),
    ...(body.raw === undefined
      ? { json: body.json }
      : { body: body.raw, contentType: body.contentType ?? 'application/json' }),
  });
  t.ensure(exchange.status === status, `POST /calls with ${what}: expected ${status} ${code}, got ${codeOf(exchange)}`);
  expectError(t, exchange, status, code);
}

/** POST /calls with `token` for `agent` (a fictional destination): one request, its exchange. */
function originateAs(t: CheckTools, token: string, agent: string) {
  return t.call({ method: 'POST', path: '/calls', token, json: { aiAgentId: agent, toNumber: FICTIONAL_E164 } });
}

/** The refusal POST /calls must give `token`/`agent`, where only the condition `what` holds. */
async function expectStateRefusal(
  t: CheckTools,
  token: string,
  agent: string,
  status: number,
  code: string,
  what: string,
): Promise<void> {
  const exchange = await originateAs(t, token, agent);
  t.ensure(exchange.status === status, `POST /calls for ${what}: expected ${status} ${code}, got ${codeOf(exchange)}`);
  expectError(t, exchange, status, code);
}

describe('POST /calls: validation (400 invalid_input)', () => {
  for (const c of callValidationProbes) {
    check(
      `POST /calls answers 400 invalid_input to ${c.title}`,
      {
        verifies: [c.verifies, 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
        needs: { tokens: ['write:calls'], agents: ['provisioned'] },
        requests: probesPlanned(c.probes('1').length, c.perRun),
        probes: probeRotation(
          c.verifies,
          c.probes('{agent}').map((p) => p.what),
          c.perRun,
        ),
      },
      async (t) => {
        // The provisioned agent, so that the field under test is the body's only defect.
        const sent = probesForRun(t, c.probes(t.agent('provisioned')), c.perRun, c.verifies, (p) => p.what);
        for (const { body, what } of sent) await expectRefused(t, body, 400, 'invalid_input', what);
      },
    );
  }
});

describe('POST /calls: agents and account state', () => {
  check(
    'POST /calls answers 404 ai_agent_not_found to an agent id that names no agent',
    {
      verifies: ['CALLS-AGENT-NOT-FOUND-404', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { tokens: ['write:calls'] },
      requests: 1,
    },
    async (t) => {
      await expectRefused(
        t,
        { json: { aiAgentId: '999999999999', toNumber: FICTIONAL_E164 } },
        404,
        'ai_agent_not_found',
        'an unknown aiAgentId',
      );
    },
  );

  check(
    "POST /calls answers 404 ai_agent_not_found to another account's agent",
    {
      verifies: ['CALLS-AGENT-NOT-FOUND-404', 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { tokens: ['write:calls'], agents: ['foreign'] },
      requests: 1,
    },
    async (t) => {
      await expectRefused(
        t,
        { json: { aiAgentId: t.agent('foreign'), toNumber: FICTIONAL_E164 } },
        404,
        'ai_agent_not_found',
        "another account's agent",
      );
    },
  );

  const unprovisioned = {
    fixtures: { tokens: ['write:calls'], agents: ['unprovisioned'] },
    control: { control: ['agent-not-provisioned'] },
  } as const;
  check(
    'POST /calls answers 409 ai_agent_not_provisioned to an agent without a SIP extension',
    {
      verifies: ['CALLS-AGENT-NOT-PROVISIONED-409', 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: unprovisioned.fixtures,
      requests: 1,
      turn: wayOf('fixtures', unprovisioned, 'CALLS-AGENT-NOT-PROVISIONED-409'),
    },
    async (t) => {
      await expectRefused(
        t,
        { json: { aiAgentId: t.agent('unprovisioned'), toNumber: FICTIONAL_E164 } },
        409,
        'ai_agent_not_provisioned',
        'an agent without SIP extension',
      );
    },
  );

  // The spec gives no precedence between ai_agent_not_found and the account-state 409s, so each
  // request meets exactly one condition: an agent OF the account in that state (with a SIP
  // extension), from the configured fixtures (TOKEN_NO_TRUNK + NO_TRUNK_AGENT_ID…) or from the
  // target's control endpoint (a state that returns such a token and agent). Either proves it.
  const accountStates = [
    {
      title: '409 account_not_provisioned when the account has no trunk',
      verifies: 'CALLS-NOT-PROVISIONED-409',
      status: 409,
      code: 'account_not_provisioned',
      what: 'an account without trunk (its own provisioned agent)',
      token: 'noTrunk',
      agent: 'noTrunk',
      state: 'account-without-trunk',
    },
    {
      title: '409 dialer_required when the account lacks the dialer add-on',
      verifies: 'CALLS-DIALER-REQUIRED-409',
      status: 409,
      code: 'dialer_required',
      what: 'an account without the dialer add-on (its own provisioned agent)',
      token: 'noDialer',
      agent: 'noDialer',
      state: 'account-without-dialer',
    },
  ] as const;
  for (const c of accountStates) {
    const needs = { fixtures: { tokens: [c.token], agents: [c.agent] }, control: { control: [c.state] } } as const;
    check(
      `POST /calls answers ${c.title} (configured fixtures)`,
      {
        verifies: [c.verifies, 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
        needs: needs.fixtures,
        requests: 1,
        turn: wayOf('fixtures', needs, c.verifies),
      },
      async (t) => {
        await expectStateRefusal(t, t.token(c.token), t.agent(c.agent), c.status, c.code, c.what);
      },
    );
    check(
      `POST /calls answers ${c.title} (control state ${c.state})`,
      {
        verifies: [c.verifies, 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
        needs: needs.control,
        requests: 1,
        turn: wayOf('control', needs, c.verifies),
      },
      async (t) => {
        const { token, agentId } = await t.control.account(c.state);
        if (agentId === undefined) return t.fail(`control: setup of ${c.state} failed: its answer has no agentId`);
        await expectStateRefusal(t, token, agentId, c.status, c.code, c.what);
      },
    );
  }

  // The agent of the control state agent-not-provisioned.
  check(
    'POST /calls answers 409 ai_agent_not_provisioned to an agent without a SIP extension (control state)',
    {
      verifies: ['CALLS-AGENT-NOT-PROVISIONED-409', 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: unprovisioned.control,
      requests: 1,
      turn: wayOf('control', unprovisioned, 'CALLS-AGENT-NOT-PROVISIONED-409'),
    },
    async (t) => {
      const { token, agentId } = await t.control.account('agent-not-provisioned');
      if (agentId === undefined)
        return t.fail('control: setup of agent-not-provisioned failed: its answer has no agentId');
      await expectStateRefusal(t, token, agentId, 409, 'ai_agent_not_provisioned', 'an agent without SIP extension');
    },
  );

  // Where the 502 carries its detail is recorded (CALLS-ORIGINATE-FAILED-DETAIL).
  check(
    'POST /calls answers 502 originate_failed when upstream rejects the originate',
    {
      verifies: [
        'CALLS-ORIGINATE-FAILED-502',
        'CALLS-ORIGINATE-FAILED-DETAIL',
        'FORMAT-ERROR-BODY',
        'CONTRACT-ERROR-CODE-PER-STATUS',
      ],
      needs: { control: ['originate-failing'] },
      requests: 1,
    },
    async (t) => {
      const { token, agentId } = await t.control.account('originate-failing');
      if (agentId === undefined) return t.fail('control: setup of originate-failing failed: its answer has no agentId');
      const exchange = await originateAs(t, token, agentId);
      t.ensure(
        exchange.status === 502,
        `POST /calls when upstream rejects the originate: expected 502 originate_failed, got ${codeOf(exchange)}`,
      );
      expectError(t, exchange, 502, 'originate_failed');
      t.observe('CALLS-ORIGINATE-FAILED-DETAIL', `where the 502 carries its detail: ${detailLocation(exchange.json)}`);
    },
  );

  check(
    'POST /calls answers 503 engine_not_configured when origination is unavailable in the environment',
    {
      verifies: ['CALLS-ENGINE-NOT-CONFIGURED-503', 'FORMAT-ERROR-BODY', 'CONTRACT-ERROR-CODE-PER-STATUS'],
      needs: { control: ['engine-not-configured'] },
      requests: 1,
    },
    async (t) => {
      const { token, agentId } = await t.control.account('engine-not-configured');
      if (agentId === undefined)
        return t.fail('control: setup of engine-not-configured failed: its answer has no agentId');
      await expectStateRefusal(t, token, agentId, 503, 'engine_not_configured', 'origination unavailable');
    },
  );
});

describe('POST /calls: origination', () => {
  // Against a remote target whose deliveries the run watches, the watch's own call is this request
  // (webhook-watch.open.suite.ts).
  if (!watchOriginates(session().target))
    check(
      'POST /calls with a valid fromNumber and metadata answers 200 with a UUID callId and status queued',
      {
        verifies: [
          'CALLS-QUEUED',
          'CALLS-METADATA-OBJECT',
          'CALLS-FROM-NUMBER-E164',
          'CALLS-TRANSITIONS',
          'CALLS-METADATA-NOT-PERSISTED',
        ],
        needs: { tokens: ['write:calls'], agents: ['provisioned'], originate: true },
        requests: 1,
      },
      async (t) => {
        const exchange = await t.call({
          method: 'POST',
          path: '/calls',
          token: t.token('write:calls'),
          json: {
            aiAgentId: t.agent('provisioned'),
            toNumber: t.target.destinationNumber,
            fromNumber: '+14155550100',
            metadata: { campaign: METADATA_MARKER, attempt: 1, tags: ['a', 'b'] },
          },
        });
        t.ensure(
          exchange.status === 200,
          `POST /calls with a valid body, a valid fromNumber and metadata: expected 200 queued, got ` +
            `${codeOf(exchange)}`,
        );
        const queued = exchange.json as CallQueued;
        t.ensure(UUID.test(queued.callId), `callId is ${JSON.stringify(queued.callId)}, must be a UUID`);
        t.ensure(queued.status === 'queued', `status is ${JSON.stringify(queued.status)}, must be queued`);
        if (t.control.offers('call-record')) {
          // The target's own record of the call (through its control endpoint): what follows queued,
          // and whether metadata stuck. Its calls may wait for its clock to be advanced (call-clock.ts).
          const clock = createCallClock();
          const record = await recordAtEnd(t.control, queued.callId, clock);
          const steps = clock.describe();
          if (steps !== undefined) t.observe('CALLS-TRANSITIONS', steps);
          const timeline =
            (record?.timeline as Array<{ status: string }> | undefined)?.map((step) => step.status) ?? [];
          t.observe('CALLS-TRANSITIONS', `the call went through: ${timeline.join(' → ') || 'no record'}`);
          t.observe(
            'CALLS-METADATA-NOT-PERSISTED',
            JSON.stringify(record ?? {}).includes(METADATA_MARKER)
              ? 'metadata was persisted in the call record'
              : 'metadata does not appear in the call record',
          );
        }
      },
    );

  // The call.ended correlation is judged on the run's watch of deliveries (webhook-watch.judge.suite.ts).
});
