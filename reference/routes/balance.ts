/**
 * GET /balance (spec: Account): the account's balance snapshot, for a token with read:balance.
 * When the upstream snapshot cannot be fetched the answer is 500 internal_error, never stale data
 * (`stale` is false in every answer the reference gives).
 */
import type { FastifyInstance } from 'fastify';
import type { Balance } from '../../contract/openapi.ts';
import { sendError } from '../http.ts';
import { site } from '../points.ts';
import type { Account } from '../seed.ts';
import { authenticate } from './authentication.ts';
import type { RouteOptions } from './options.ts';

export const getBalance = site('GET /balance', {
  /** Whether a failed upstream fetch is answered with the last snapshot, marked stale. */
  servesStale: (): boolean => false,
  body: ({ account, stale }: { account: Account; stale: boolean }): Record<string, unknown> =>
    ({
      balance: account.balance,
      currency: account.currency,
      accountType: account.accountType,
      creditLimit: account.creditLimit,
      blocked: account.blocked,
      stale,
    }) satisfies Balance,
});

export async function balanceRoute(app: FastifyInstance, options: RouteOptions): Promise<void> {
  const { store, points } = options;
  app.get('/v1/balance', (request, reply) => {
    const token = authenticate(request, reply, 'GET /balance', options);
    if (token === undefined) return reply;
    const at = points.of(getBalance);
    const account = store.state.accounts.get(token.account)!;
    const upstreamFailed = store.failing('balanceUpstreamFails', token.account);
    if (upstreamFailed && !at.servesStale())
      return sendError(
        reply,
        points,
        500,
        'internal_error',
        'the upstream balance snapshot could not be fetched; retry',
      );
    return reply.send(at.body({ account, stale: upstreamFailed }));
  });
}
