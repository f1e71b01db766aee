/**
 * The token fixtures a check may need and the variable that carries each one. A module of its
 * own, apart from config.ts: the checks' workers read these names, and importing the whole
 * configuration (dotenv, the receiver's settings, node:http and node:https) cost every worker
 * of every run its start-up time for nothing.
 */
import { scopes } from '../../contract/openapi.ts';

/** Token fixtures a check may need, by the name the reference server's fixtures use. */
export const tokenNames = ['all', 'none', ...scopes, 'revoked', 'expired', 'suspended', 'noTrunk', 'noDialer'] as const;
export type TokenName =
  | 'all'
  | 'none'
  | 'revoked'
  | 'expired'
  | 'suspended'
  | 'noTrunk'
  | 'noDialer'
  | (typeof scopes)[number];

/** The environment variable that carries each token: TOKEN_ALL, TOKEN_READ_BALANCE, TOKEN_NO_TRUNK… */
export function tokenVariable(name: TokenName): string {
  return `TOKEN_${name
    .replace(/[:]/g, '_')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;
}
