/**
 * The scope matrix's refusals for one operation, ranked by how often real servers get them
 * wrong, likeliest first; a run whose budget cannot send the whole row sends the first every
 * run (rotation.ts rankedForRun) and the others in turns:
 *
 * 1. the unscoped token (TOKEN_NONE): a server that checks "authenticated" instead of the scope
 *    lets it in, and so does one that forgot the operation's scope check altogether;
 * 2. the scope of the row next to this one in the scope table (the one before, or after for the
 *    first): a copy-pasted line of the table accepts exactly that token;
 * 3. the other scopes of documented operations, in table order;
 * 4. the scopes no documented operation needs (read:numbers, read:invoices): exotic cells, a
 *    server rarely routes them anywhere.
 */
import type { TokenName } from '../../harness/config/tokens.ts';

export function lackingTokens(
  scope: string,
  scopes: readonly string[],
  operationScopes: readonly string[],
): TokenName[] {
  const used = scopes.filter((s) => operationScopes.includes(s));
  const at = used.indexOf(scope);
  const neighbour = at > 0 ? used[at - 1] : used[at + 1];
  const others = used.filter((s) => s !== scope && s !== neighbour);
  const exotic = scopes.filter((s) => !operationScopes.includes(s) && s !== scope);
  return ['none', ...(neighbour === undefined ? [] : [neighbour]), ...others, ...exotic] as TokenName[];
}
