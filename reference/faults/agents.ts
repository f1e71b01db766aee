/** Faults of GET /agents (../routes/agents.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { getAgents } from '../routes/agents.ts';

export default faultsAt(getAgents, {
  // The account filter lost from the query.
  'agents-list-leaks-foreign': { listed: () => true },
  'agents-credentials-leaked': { row: (agent, next) => ({ ...next(agent), sipPassword: agent.sipPassword }) },
  // The database integer.
  'agents-id-number': { row: (agent, next) => ({ ...next(agent), id: Number(agent.id) }) },
  'agents-count-mismatch': {
    body: (agents, next) => {
      const body = next(agents);
      return { ...body, count: body.count + 1 };
    },
  },
});
