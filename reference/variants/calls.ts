/** Conformant variants of POST /calls (../routes/calls.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { postCalls } from '../routes/calls.ts';

export default variantsAt(postCalls, {
  // The agent judged right after aiAgentId is read.
  'calls-agent-first': { order: () => ['aiAgentId', 'agent', 'fields', 'account', 'environment'] as const },
  'control-502-detail-in-message': {
    originateFailed: (detail) => ({
      status: 502,
      error: 'originate_failed',
      message: `upstream rejected the originate (detail: ${detail})`,
    }),
  },
});
