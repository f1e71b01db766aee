/**
 * What a check needs from the configuration, and, when something is missing, the sentence that
 * tells a user which variable would make the check verifiable. Pure.
 */
import { tokenVariable, type TokenName } from '../config/tokens.ts';
import type { ControlCapability } from '../../contract/control.ts';
import type { RunTarget } from '../run/context.ts';

export type AgentRole = 'provisioned' | 'unprovisioned' | 'foreign' | 'noTrunk' | 'noDialer';

export interface Needs {
  readonly tokens?: readonly TokenName[];
  readonly agents?: readonly AgentRole[];
  /** States and inspections of the test-control protocol (control-openapi.json) the check uses. */
  readonly control?: readonly ControlCapability[];
  /** The embedded reference server itself (the check starts its own instance, e.g. with a short rate window). */
  readonly embedded?: boolean;
  /** Permission to ring a real number. */
  readonly originate?: boolean;
  /** Deliveries from the target can reach the local receiver. */
  readonly webhooks?: boolean;
  /** OAuth client credentials and the auth URL. */
  readonly oauth?: boolean;
  /** The scopes the OAuth client is registered for (OAUTH_CLIENT_SCOPES). */
  readonly oauthScopes?: boolean;
}

const agentVariable: Record<AgentRole, string> = {
  provisioned: 'TEST_AGENT_ID',
  unprovisioned: 'TEST_UNPROVISIONED_AGENT_ID',
  foreign: 'FOREIGN_AGENT_ID',
  noTrunk: 'NO_TRUNK_AGENT_ID',
  noDialer: 'NO_DIALER_AGENT_ID',
};

const NOT_OFFERED = "not verifiable: the target's control endpoint does not offer ";
const NEEDS = 'not verifiable with this configuration: needs ';

function controlPhrase(capabilities: readonly ControlCapability[]): string {
  const offering = capabilities.join(', ');
  return `CONTROL_URL and CONTROL_TOKEN (a test-control endpoint offering ${offering}: see control-openapi.json)`;
}

/** One phrase per missing need, naming the variable (or the target) that would provide it. */
export function missingNeeds(needs: Needs, target: RunTarget): string[] {
  const missing: string[] = [];
  for (const name of needs.tokens ?? []) {
    if (target.tokens[name] === undefined) missing.push(tokenVariable(name));
  }
  for (const role of needs.agents ?? []) {
    if (target.agents[role] === undefined) missing.push(agentVariable[role]);
  }
  if ((needs.control ?? []).length > 0 && target.control === undefined) {
    missing.push(controlPhrase(needs.control!));
  }
  if (needs.embedded === true && target.kind === 'remote') {
    missing.push('the embedded reference server (this check starts its own instance; unset API_BASE_URL)');
  }
  if (
    needs.originate === true &&
    target.kind === 'remote' &&
    !(target.allowOriginate && target.destinationNumber !== undefined)
  ) {
    missing.push('ALLOW_ORIGINATE=true and TEST_DESTINATION_NUMBER');
  }
  if (needs.webhooks === true && target.receiverPublicUrl === undefined) {
    missing.push(
      'WEBHOOK_PUBLIC_URL (a tunnel to the local receiver, ' +
        'or with RECEIVER_URL + RECEIVER_TOKEN a receiver deployed next to the target)',
    );
  }
  if (needs.oauth === true && (target.authUrl === undefined || target.oauth === undefined)) {
    missing.push('AUTH_URL, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET');
  }
  if (needs.oauthScopes === true && target.oauth?.scopes === undefined) {
    missing.push('OAUTH_CLIENT_SCOPES (the scopes the OAuth client is registered for)');
  }
  return missing;
}

/** The capabilities a check needs that the configured control endpoint does not offer. */
export function notOffered(needs: Needs, target: RunTarget): ControlCapability[] {
  if (target.control === undefined) return [];
  return (needs.control ?? []).filter((capability) => !target.control!.offered.includes(capability));
}

/** Why a check can't run with this configuration. */
export interface Unverifiable {
  /** The sentence for the report, naming what would make the check verifiable. */
  readonly reason: string;
  /**
   * The control capabilities whose absence alone is why ([] when
   * anything else is missing too): the report's control gaps.
   */
  readonly missingCapabilities: readonly ControlCapability[];
}

/** Why a check is not verifiable with this configuration, or undefined when it can run. */
export function unverifiable(needs: Needs, target: RunTarget): Unverifiable | undefined {
  const missing = missingNeeds(needs, target);
  if (missing.length > 0) {
    // Only CONTROL_URL is missing: every capability the check declares would come with it.
    const onlyControl = missing.length === 1 && target.control === undefined && (needs.control ?? []).length > 0;
    return { reason: `${NEEDS}${missing.join('; ')}`, missingCapabilities: onlyControl ? [...needs.control!] : [] };
  }
  const lacking = notOffered(needs, target);
  return lacking.length > 0
    ? { reason: `${NOT_OFFERED}${lacking.join(', ')}`, missingCapabilities: lacking }
    : undefined;
}

/** Why a check is not verifiable with this configuration, or undefined when it can run. */
export function notVerifiableReason(needs: Needs, target: RunTarget): string | undefined {
  return unverifiable(needs, target)?.reason;
}
