/**
 * GET /agents (spec: Agents): the account's AI agents, for a token with read:agents. Each row is
 * a projection: only the documented fields leave the server, never the SIP credentials.
 */
import type { FastifyInstance } from 'fastify';
import type { Agent, AgentList } from '../../contract/openapi.ts';
import { site } from '../points.ts';
import type { AccountName, AgentRecord } from '../seed.ts';
import { authenticate } from './authentication.ts';
import type { RouteOptions } from './options.ts';

export const getAgents = site('GET /agents', {
  /** An account sees its own agents only. */
  listed: ({ agent, account }: { agent: AgentRecord; account: AccountName }): boolean => agent.account === account,
  row: (agent: AgentRecord): Record<string, unknown> => {
    const row: Partial<Agent> = { id: agent.id, label: agent.label, createdAt: agent.createdAt };
    if (agent.sipUsername !== undefined) row.sipUsername = agent.sipUsername;
    return row;
  },
  /** The AgentList: count = the rows returned. */
  body: (agents: Array<Record<string, unknown>>): { count: number; agents: unknown[] } =>
    ({ count: agents.length, agents }) satisfies Partial<AgentList>,
});

export async function agentsRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  app.get('/v1/agents', (request, reply) => {
    const token = authenticate(request, reply, 'GET /agents', options);
    if (token === undefined) return reply;
    const at = points.of(getAgents);
    const agents = [...store.state.agents.values()].filter((agent) => at.listed({ agent, account: token.account }));
    return reply.send(at.body(agents.map((agent) => at.row(agent))));
  });
}
