/** Requests to each operation that can do no harm once past authentication (auth.suite.ts, oauth.suite.ts). */
import { randomUUID } from 'node:crypto';
import type { OperationInfo, OperationKey } from '../../contract/openapi.ts';
import type { CallRequest } from '../../harness/checks/check.ts';

/**
 * A request to `op` that can do no harm once past authentication: POST /calls with a toNumber
 * that is not E.164 (it can never ring anything), POST /hooks with an event outside the
 * enumeration and an http target (nothing can be created), DELETE of a UUID no hook has.
 */
export function harmlessRequest(op: OperationInfo): Omit<CallRequest, 'token' | 'authorization'> {
  switch (op.key) {
    case 'POST /calls':
      return { method: 'POST', path: '/calls', json: { aiAgentId: '1', toNumber: 'not-a-phone-number' } };
    case 'POST /hooks':
      return {
        method: 'POST',
        path: '/hooks',
        json: { event: 'not.an.event', target_url: 'http://example.invalid/never' },
      };
    case 'DELETE /hooks/{id}':
      return { method: 'DELETE', path: `/hooks/${randomUUID()}` };
    default:
      return { method: op.method, path: op.path };
  }
}

/**
 * What `harmlessRequest` answers once authentication (and the scope) passed. POST /calls: the
 * body's toNumber is invalid (400) and agent "1" may not exist (404); the spec does not say
 * which check comes first, so either is the answer of a conformant target.
 */
export const passedAuth: Partial<Record<OperationKey, readonly [number, string?]>> = {
  'GET /me': [200],
  'GET /balance': [200],
  'GET /cdrs': [200],
  'GET /agents': [200],
  'POST /calls': [400, 'invalid_input'],
  'POST /hooks': [400, 'invalid_input'],
  'DELETE /hooks/{id}': [404, 'not_found'],
};
