/** What every route of ./ is registered with. */
import type { Points } from '../points.ts';
import type { ReferenceStore } from '../store.ts';

export interface RouteOptions {
  /** The world the route reads and changes. */
  readonly store: ReferenceStore;
  /** Its points as the faults and variants switched on bend them (../points.ts). */
  readonly points: Points;
  /** The server's origin (http://host:port), known once it listens: {auth_url}, and {base_url} without /v1. */
  readonly origin: () => string;
}
