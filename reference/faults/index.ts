/**
 * Every fault's overrides of the reference's points (../points.ts), one module per site it bends.
 * The catalogue (../faults.ts) describes each fault; a fault implemented elsewhere (the store, the
 * dispatcher, the rate limiter) is named there too.
 */
import type { Bend } from '../points.ts';
import agents from './agents.ts';
import authentication from './authentication.ts';
import balance from './balance.ts';
import calls from './calls.ts';
import cdrs from './cdrs.ts';
import control from './control.ts';
import delivery from './delivery.ts';
import docs from './docs.ts';
import errors from './errors.ts';
import events from './events.ts';
import hooksId from './hooks-id.ts';
import hooks from './hooks.ts';
import jsonBody from './json-body.ts';
import me from './me.ts';
import oauth from './oauth.ts';
import rateLimit from './rate-limit.ts';
import standards from './standards.ts';
import relations from './relations.ts';
import surface from './surface.ts';

export const faultBends: readonly Bend[] = [
  ...errors,
  ...surface,
  ...rateLimit,
  ...authentication,
  ...jsonBody,
  ...me,
  ...balance,
  ...cdrs,
  ...agents,
  ...calls,
  ...hooks,
  ...hooksId,
  ...oauth,
  ...docs,
  ...events,
  ...delivery,
  ...control,
  ...standards,
  ...relations,
];
