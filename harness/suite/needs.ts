/**
 * What a check needs from the configuration, and, when something is missing, the sentence that
 * tells a user which variable would make the check verifiable. Pure.
 */
import { tokenVariable, type TokenName } from '../config/config.ts';
import type { ProvidedTarget } from './provided.ts';

export type AgentRole = 'provisioned' | 'unprovisioned' | 'foreign';

export interface Needs {
  readonly tokens?: readonly TokenName[];
  readonly agents?: readonly AgentRole[];
  /** The reference server's control API: states a remote target would need fixtures for. */
  readonly control?: boolean;
  /** Permission to ring a real number. */
  readonly originate?: boolean;
  /** Deliveries from the target can reach the local receiver. */
  readonly webhooks?: boolean;
  /** OAuth client credentials and the auth URL. */
  readonly oauth?: boolean;
}

const agentVariable: Record<AgentRole, string> = {
  provisioned: 'TEST_AGENT_ID',
  unprovisioned: 'TEST_UNPROVISIONED_AGENT_ID',
  foreign: 'FOREIGN_AGENT_ID',
};

/** One phrase per missing need, naming the variable (or the target) that would provide it. */
export function missingNeeds(needs: Needs, target: ProvidedTarget): string[] {
  const missing: string[] = [];
  for (const name of needs.tokens ?? []) {
    if (target.tokens[name] === undefined) missing.push(tokenVariable(name));
  }
  for (const role of needs.agents ?? []) {
    if (target.agents[role] === undefined) missing.push(agentVariable[role]);
  }
  if (needs.control === true && target.controlUrl === undefined) {
    missing.push('the embedded reference server (its control API sets up this state; a remote target has no equivalent)');
  }
  if (needs.originate === true && target.kind === 'remote' && !(target.allowOriginate && target.destinationNumber !== undefined)) {
    missing.push('ALLOW_ORIGINATE=true and TEST_DESTINATION_NUMBER');
  }
  if (needs.webhooks === true && target.receiverPublicUrl === undefined) {
    missing.push('WEBHOOK_PUBLIC_URL (a tunnel to the local receiver, or with RECEIVER_URL + RECEIVER_TOKEN a receiver deployed next to the target)');
  }
  if (needs.oauth === true && (target.authUrl === undefined || target.oauth === undefined)) {
    missing.push('AUTH_URL, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET');
  }
  return missing;
}
