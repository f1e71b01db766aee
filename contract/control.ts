/**
 * control-openapi.json, the optional test-control protocol a target may implement (see its
 * info.description), loaded once: the state and inspection names are written down there only.
 */
import document from '../control-openapi.json' with { type: 'json' };

export const controlOpenapi = document;

/** The protocol version a target's GET /capabilities names. */
export const CONTROL_PROTOCOL = document.components.schemas.Capabilities.properties.protocol.const;

export const controlStates = [
  'account-suspended',
  'account-without-trunk',
  'account-without-dialer',
  'agent-not-provisioned',
  'balance-upstream-failing',
  'originate-failing',
  'engine-not-configured',
  'event-emitted',
  'token-issued',
  'token-revoked',
  'clock-advanced',
] as const;
export const controlInspections = [
  'clock',
  'hook-attempts',
  'deliveries-idle',
  'token-last-used',
  'call-record',
] as const;

export type ControlState = (typeof controlStates)[number];
export type ControlInspection = (typeof controlInspections)[number];
/** What a check may need from a control endpoint: a state it sets up or an inspection it reads. */
export type ControlCapability = ControlState | ControlInspection;

export const controlCapabilities: readonly ControlCapability[] = [...controlStates, ...controlInspections];

/**
 * The capabilities that drive webhook deliveries in the target's own virtual time: emit an event, wait
 * for idle deliveries, read a hook's attempts, read and move the clock (the delivery checks and the k6
 * webhook-retry probe).
 */
export const VIRTUAL_TIME_DELIVERIES = [
  'event-emitted',
  'deliveries-idle',
  'hook-attempts',
  'clock',
  'clock-advanced',
] as const satisfies readonly ControlCapability[];

export function isControlState(name: string): name is ControlState {
  return (controlStates as readonly string[]).includes(name);
}

export function isControlInspection(name: string): name is ControlInspection {
  return (controlInspections as readonly string[]).includes(name);
}
