/**
 * POST /calls (spec: Calls): originates a call from one of the account's AI agents to an E.164
 * number, for a token with write:calls; answers 200 {callId, status: queued}.
 *
 * Decisions where the spec is silent (OBSERVE requirements of the catalogue): the order of the
 * checks, first failing wins:
 *   401 auth → 400 invalid_input (content type, JSON, object, aiAgentId, toNumber, fromNumber,
 *   metadata) → 409 account_not_provisioned → 409 dialer_required → 404 ai_agent_not_found →
 *   409 ai_agent_not_provisioned → 503 engine_not_configured → 502 originate_failed.
 * Account state before the agent (resources live in a provisioned account), environment and
 * upstream last (only known when the originate is attempted). The 502 carries the upstream
 * `detail` as a string field of the error body next to `message`. Unknown body fields are
 * ignored; metadata is accepted and dropped; fromNumber is validated and otherwise ignored.
 */
import type { FastifyInstance } from 'fastify';
import { E164_PATTERN, NUMERIC_ID_PATTERN } from '../../contract/openapi.ts';
import { isPlainObject, refuse } from '../http.ts';
import type { ErrorAnswer } from '../http.ts';
import { site } from '../points.ts';
import type { Account, AccountName, AgentRecord } from '../seed.ts';
import { authenticate } from './authentication.ts';
import { objectBody } from './json-body.ts';
import type { RouteOptions } from './options.ts';
import type { CallRecord, ReferenceStore } from '../store.ts';

/** The checks of a POST /calls, each one step of the order above. */
export type CallCheck = 'aiAgentId' | 'fields' | 'account' | 'agent' | 'environment';

/** An accepted origination: the account's agent, the destination, the body as sent. */
export interface Origination {
  readonly store: ReferenceStore;
  readonly account: AccountName;
  readonly agent: AgentRecord;
  readonly toNumber: string;
  readonly body: Record<string, unknown>;
}

const invalid = (message: string): ErrorAnswer => ({ status: 400, error: 'invalid_input', message });
const notProvisioned: ErrorAnswer = {
  status: 409,
  error: 'account_not_provisioned',
  message: 'no trunk is allocated to the account yet',
};

export const postCalls = site('POST /calls', {
  /** The order of the checks (see the module comment). */
  order: (): readonly CallCheck[] => ['aiAgentId', 'fields', 'account', 'agent', 'environment'],
  /** aiAgentId as the body gives it. */
  agentId: (value: unknown): unknown => value,
  /** Whether toNumber or fromNumber is an E.164 number. */
  e164: ({ number }: { field: 'toNumber' | 'fromNumber'; number: string }): boolean => E164_PATTERN.test(number),
  /** Why metadata is refused; undefined when it is a JSON object. */
  metadataProblem: (metadata: unknown): string | undefined =>
    isPlainObject(metadata) ? undefined : 'metadata must be a JSON object',
  lacksDialer: (account: Account): boolean => !account.dialer,
  /** An agent of another account is no agent of this one. */
  ownAgent: ({ agent, account }: { agent: AgentRecord; account: AccountName }): boolean => agent.account === account,
  unprovisionedAgent: (agentId: string): ErrorAnswer => ({
    status: 409,
    error: 'ai_agent_not_provisioned',
    message: `agent ${agentId} has no SIP extension yet`,
  }),
  /** What a refused POST /calls leaves behind: nothing. */
  refused: (_refused: {
    store: ReferenceStore;
    account: AccountName;
    check: CallCheck;
    body: Record<string, unknown>;
  }): void => {},
  /** The call an accepted POST /calls places (metadata and fromNumber go nowhere). */
  originate: ({ store, account, agent, toNumber }: Origination): CallRecord =>
    store.originate(account, agent, toNumber),
  /** The 502 when the upstream rejects the originate: its detail in a field of its own. */
  originateFailed: (detail: string): ErrorAnswer => ({
    status: 502,
    error: 'originate_failed',
    message: 'upstream rejected the originate',
    extra: { detail },
  }),
});

export async function callsRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  app.post('/v1/calls', (request, reply) => {
    const token = authenticate(request, reply, 'POST /calls', options);
    if (token === undefined) return reply;
    const body = objectBody(request, reply, options);
    if (body === undefined) return reply;
    const at = points.of(postCalls);
    const aiAgentId = at.agentId(body.aiAgentId);
    const { toNumber, fromNumber, metadata } = body;
    const account = store.state.accounts.get(token.account)!;
    const checks: Record<CallCheck, () => ErrorAnswer | undefined> = {
      aiAgentId: () =>
        typeof aiAgentId === 'string' && NUMERIC_ID_PATTERN.test(aiAgentId)
          ? undefined
          : invalid('aiAgentId is required and must be a numeric string'),
      fields: () => {
        if (typeof toNumber !== 'string' || !at.e164({ field: 'toNumber', number: toNumber }))
          return invalid('toNumber is required and must be an E.164 number, e.g. +14155550100');
        if (
          fromNumber !== undefined &&
          !(typeof fromNumber === 'string' && at.e164({ field: 'fromNumber', number: fromNumber }))
        )
          return invalid('fromNumber must be an E.164 number, e.g. +14155550100');
        const problem = metadata === undefined ? undefined : at.metadataProblem(metadata);
        return problem === undefined ? undefined : invalid(problem);
      },
      account: () => {
        if (!account.trunk) return notProvisioned;
        if (at.lacksDialer(account))
          return {
            status: 409,
            error: 'dialer_required',
            message: 'the dialer add-on is needed for outbound originates',
          };
        return undefined;
      },
      agent: () => {
        const agent = store.state.agents.get(aiAgentId as string);
        if (agent === undefined || !at.ownAgent({ agent, account: token.account }))
          return { status: 404, error: 'ai_agent_not_found', message: `no agent ${aiAgentId} on this account` };
        return agent.sipUsername === undefined ? at.unprovisionedAgent(aiAgentId as string) : undefined;
      },
      environment: () => {
        if (store.failing('engineNotConfigured', token.account))
          return {
            status: 503,
            error: 'engine_not_configured',
            message: 'origination is unavailable in this environment',
          };
        if (store.failing('originateFails', token.account))
          return at.originateFailed('SIP 503 Service Unavailable from the carrier');
        return undefined;
      },
    };
    for (const check of at.order()) {
      const refusal = checks[check]();
      if (refusal === undefined) continue;
      at.refused({ store, account: token.account, check, body });
      return refuse(reply, points, refusal);
    }
    const agent = store.state.agents.get(aiAgentId as string)!;
    const call = at.originate({ store, account: token.account, agent, toNumber: toNumber as string, body });
    return reply.send({ callId: call.callId, status: 'queued' });
  });
}
