/**
 * Faults of the test-control endpoint (../control-protocol.ts, ../control-states.ts):
 * ../control-faults.ts describes each and the rule of control-openapi.json it breaks.
 */
import { controlInspections, controlStates as states } from '../../contract/control.ts';
import { controlProtocol } from '../control-protocol.ts';
import { controlStates, ProtocolError } from '../control-states.ts';
import { controlFaultsAt } from '../points.ts';

export default [
  ...controlFaultsAt(controlProtocol, {
    'control-auth-open': { authorised: () => true },
    'control-capabilities-shape': {
      capabilities: (_, next) => ({ ...next(), states: states.join(',') }),
    },
    'control-clock-unlisted': {
      capabilities: (_, next) => ({
        ...next(),
        inspections: controlInspections.filter((inspection) => inspection !== 'clock'),
      }),
    },
    'control-capabilities-lie': { offered: (state, next) => state !== 'originate-failing' && next(state) },
  }),
  ...controlFaultsAt(controlStates, {
    'control-setup-missing-field': {
      accountValues: ({ state, values }, next) => {
        const answered = next({ state, values });
        if (state !== 'account-without-trunk') return answered;
        const { agentId: _, ...rest } = answered;
        return rest;
      },
    },
    // A call's set in eventIds, all but the event of the requested kind (the eventId it answers).
    'control-event-ids-without-event-id': {
      emit: ({ store, account, kind, fields }) => {
        const { eventIds } = store.emitSet(account, kind, fields);
        return { eventId: eventIds[0], eventIds: eventIds.slice(1) };
      },
    },
    'control-teardown-fails': {
      failsTeardown: (state) => new ProtocolError(500, 'teardown_failed', `the teardown of ${state} failed`),
    },
  }),
];
