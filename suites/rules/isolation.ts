/**
 * The rules of isolation.suite.ts that need no target: values of OTHER accounts (needles) looked
 * for in the bodies of this account's answers. Pure, so test/suites/isolation.test.ts can hold them.
 *
 * A needle counts only where a value of its kind sits (an agent id in an agent record's id, a SIP
 * username in a sipUsername field, a record id in a record's id): ids of different kinds may share
 * digits (agent 1234 and record 1234) and timestamps hold four-digit years.
 */

export interface Needle {
  /** A value of another account, e.g. an agent id. */
  readonly value: string;
  /** Whose and what it is, for the message: "agent id of the TOKEN_NO_DIALER account". */
  readonly what: string;
  /** The JSON paths where it counts, e.g. /^agents\[\d+\]\.id$/ (paths as `leafPaths` writes them). */
  readonly at: RegExp;
}

export interface Leak {
  readonly needle: Needle;
  /** Where it was found, e.g. "agents[5].id". */
  readonly path: string;
}

/** Where each kind of value sits in GET /agents and GET /cdrs answers. */
export const needlePlaces = {
  agentId: /^agents\[\d+\]\.id$/,
  sipUsername: /^(agents|calls)\[\d+\]\.sipUsername$/,
  cdrId: /^calls\[\d+\]\.id$/,
} as const;

/** Every string or number leaf of a JSON value with its path ("agents[0].id"), depth-first. */
export function leafPaths(value: unknown, path = ''): Array<{ path: string; value: string }> {
  if (typeof value === 'string') return [{ path, value }];
  if (typeof value === 'number') return [{ path, value: String(value) }];
  if (Array.isArray(value)) return value.flatMap((item, index) => leafPaths(item, `${path}[${index}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) => leafPaths(item, path === '' ? key : `${path}.${key}`));
  return [];
}

/** The needles found in `body`, each with the path it was found at. */
export function leakedNeedles(body: unknown, needles: readonly Needle[]): Leak[] {
  if (needles.length === 0) return [];
  const leaks: Leak[] = [];
  for (const leaf of leafPaths(body)) {
    for (const needle of needles)
      if (leaf.value === needle.value && needle.at.test(leaf.path)) leaks.push({ needle, path: leaf.path });
  }
  return leaks;
}

/** One sentence naming the leaked values, for a failure. */
export function describeLeaks(where: string, leaks: readonly Leak[]): string {
  const named = leaks.slice(0, 5).map((leak) => `${leak.needle.what} ${leak.needle.value} at ${leak.path}`);
  const more = leaks.length > 5 ? ` and ${leaks.length - 5} more` : '';
  return `${where} carries what belongs to another account: ${named.join('; ')}${more}`;
}

/** Needles from another account's GET /agents answer: its agents' ids and SIP usernames. */
export function agentNeedles(body: unknown, owner: string): Needle[] {
  const agents = (body as { agents?: unknown } | undefined)?.agents;
  if (!Array.isArray(agents)) return [];
  return agents.flatMap((agent: { id?: unknown; sipUsername?: unknown }) => [
    ...(typeof agent.id === 'string' || typeof agent.id === 'number'
      ? [{ value: String(agent.id), what: `agent id of ${owner}`, at: needlePlaces.agentId }]
      : []),
    ...(typeof agent.sipUsername === 'string' && agent.sipUsername !== ''
      ? [{ value: agent.sipUsername, what: `SIP username of ${owner}`, at: needlePlaces.sipUsername }]
      : []),
  ]);
}

/** Needles from another account's GET /cdrs answer: its records' ids and SIP usernames. */
export function cdrNeedles(body: unknown, owner: string): Needle[] {
  const calls = (body as { calls?: unknown } | undefined)?.calls;
  if (!Array.isArray(calls)) return [];
  const needles: Needle[] = [];
  const usernames = new Set<string>();
  for (const call of calls as Array<{ id?: unknown; sipUsername?: unknown }>) {
    if (typeof call.id === 'string' && call.id !== '')
      needles.push({ value: call.id, what: `record id of ${owner}`, at: needlePlaces.cdrId });
    if (typeof call.sipUsername === 'string' && call.sipUsername !== '') usernames.add(call.sipUsername);
  }
  for (const name of usernames)
    needles.push({ value: name, what: `SIP username of ${owner}`, at: needlePlaces.sipUsername });
  return needles;
}

/** The configured agents of other accounts (FOREIGN_AGENT_ID, NO_TRUNK_AGENT_ID, NO_DIALER_AGENT_ID) as needles. */
export function foreignAgentNeedles(agents: {
  readonly foreign?: string | undefined;
  readonly noTrunk?: string | undefined;
  readonly noDialer?: string | undefined;
}): Needle[] {
  const configured: Array<[string | undefined, string]> = [
    [agents.foreign, 'FOREIGN_AGENT_ID'],
    [agents.noTrunk, 'NO_TRUNK_AGENT_ID'],
    [agents.noDialer, 'NO_DIALER_AGENT_ID'],
  ];
  return configured.flatMap(([id, variable]) =>
    id === undefined ? [] : [{ value: id, what: `agent of another account (${variable})`, at: needlePlaces.agentId }],
  );
}
