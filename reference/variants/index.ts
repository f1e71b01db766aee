/** Every conformant variant's overrides of the reference's points (../points.ts), by site. */
import type { Bend } from '../points.ts';
import authentication from './authentication.ts';
import calls from './calls.ts';
import cdrs from './cdrs.ts';
import control from './control.ts';
import delivery from './delivery.ts';
import hooks from './hooks.ts';
import oauth from './oauth.ts';
import rateLimit from './rate-limit.ts';
import relations from './relations.ts';

export const variantBends: readonly Bend[] = [
  ...rateLimit,
  ...authentication,
  ...cdrs,
  ...calls,
  ...oauth,
  ...delivery,
  ...hooks,
  ...control,
  ...relations,
];
