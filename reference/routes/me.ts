/**
 * GET /me (spec: Account): the identity of the token's account, for a token of any scope (or
 * none); 403 suspended for a suspended account. The spec names the suspension on GET /me only,
 * so the other operations of a suspended account are unaffected.
 */
import type { FastifyInstance } from 'fastify';
import type { Me } from '../../contract/openapi.ts';
import { sendError } from '../http.ts';
import { site } from '../points.ts';
import type { Account } from '../seed.ts';
import { authenticate } from './authentication.ts';
import type { RouteOptions } from './options.ts';

export const getMe = site('GET /me', {
  suspended: (account: Account): boolean => account.suspended,
  /** The Me body: the account's identity and nothing else. */
  body: (account: Account): Partial<Me> => ({
    customerId: account.customerId,
    companyName: account.companyName,
    primaryContactEmail: account.primaryContactEmail,
  }),
  status: (): number => 200,
});

export async function meRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  app.get('/v1/me', (request, reply) => {
    const token = authenticate(request, reply, 'GET /me', options);
    if (token === undefined) return reply;
    const at = points.of(getMe);
    const account = store.state.accounts.get(token.account)!;
    if (at.suspended(account)) return sendError(reply, points, 403, 'suspended', 'the account is suspended');
    return reply.code(at.status()).send(at.body(account));
  });
}
