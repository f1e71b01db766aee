/**
 * Faults of the reference's test-control endpoint (./control-protocol.ts), switched on at start
 * (`controlFaults` option of startReferenceServer): each breaks one rule of control-openapi.json
 * (x-control-check-rules) the way a vendor's endpoint could, and `occ control-check` must name that
 * rule (test/control-check/control-check.run.test.ts). A list of its own, apart from the API's fault catalogue
 * (./faults.ts): the API self-proof and its kill rate never see these, and they change nothing
 * under /v1.
 */
export interface ControlFault {
  readonly id: string;
  readonly description: string;
  /** The rule of x-control-check-rules it breaks. */
  readonly breaks: string;
}

export const controlFaults = [
  {
    id: 'control-capabilities-shape',
    description: 'GET /capabilities answers its states as one comma-separated string instead of an array.',
    breaks: 'CTL-CAPABILITIES',
  },
  {
    id: 'control-auth-open',
    description: 'Every control request is served without a token or with a wrong one.',
    breaks: 'CTL-AUTH',
  },
  {
    id: 'control-clock-unlisted',
    description: 'GET /capabilities lists clock-advanced but not the clock inspection.',
    breaks: 'CTL-CLOCK-WITH-ADVANCE',
  },
  {
    id: 'control-capabilities-lie',
    description: 'GET /capabilities lists originate-failing, but its setup answers 404 unknown_state.',
    breaks: 'CTL-OFFERED-WORKS',
  },
  {
    id: 'control-setup-missing-field',
    description: 'The setup of account-without-trunk answers a token without the agentId it documents.',
    breaks: 'CTL-SETUP-VALUES',
  },
  {
    id: 'control-event-ids-without-event-id',
    description:
      "event-emitted emits a call's set and lists it in eventIds, all but the event of the requested kind " +
      '(the eventId it answers).',
    breaks: 'CTL-SETUP-VALUES',
  },
  {
    id: 'control-teardown-fails',
    description: 'Every teardown answers 500 teardown_failed.',
    breaks: 'CTL-TEARDOWN',
  },
] as const satisfies readonly ControlFault[];

export type ControlFaultId = (typeof controlFaults)[number]['id'];

/** The ids switched on; throws naming an id the list lacks. */
export function controlFaultSet(ids: readonly string[] = []): ReadonlySet<ControlFaultId> {
  const known = new Set<string>(controlFaults.map((fault) => fault.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new RangeError(`unknown control fault ${unknown.join(', ')}; one of ${[...known].join(', ')}`);
  }
  return new Set(ids as ControlFaultId[]);
}
