/**
 * Named points of the reference's behaviour, where a fault (./faults/) or a conformant variant
 * (./variants/) bends it.
 *
 * A route (./routes/) is written as the spec reads. Where a fault or a variant makes it behave
 * otherwise, the route asks a named point of its own site instead of deciding inline: each point
 * is one function of one input, and the conformant behaviour is its default. A fault or a variant
 * overrides points of a site: an override gets the point's input and the behaviour it bends
 * (`next`: the default, or the override registered before it) and gives the point's answer.
 * Reading a route shows the spec; reading a fault's override shows its slip.
 *
 * A new fault registers with the site it bends, in the module of ./faults/ for that site:
 *
 *   faultsAt(getMe, { 'me-wrong-status': { status: () => 201 } })
 *
 * and that module's list is in ./faults/index.ts. Variants do the same with variantsAt.
 */
import type { ControlFaultId } from './control-faults.ts';
import type { FaultId, FaultSet } from './faults.ts';
import type { VariantId, VariantSet } from './variants.ts';

// biome-ignore lint/suspicious/noExplicitAny: a point's input and answer are typed by its site.
type Point = (input: any) => unknown;
/** The points of a site, by name. */
export type Table = Record<string, Point>;

/** A named place of the reference (a route, or a step several routes share) and its conformant points. */
export interface Site<T extends Table> {
  readonly name: string;
  readonly defaults: T;
}

export function site<T extends Table>(name: string, defaults: T): Site<T> {
  return { name, defaults };
}

/** What replaces point P while its switch is on: the input, and the behaviour it bends. */
export type Override<P extends Point> = (input: Parameters<P>[0], next: P) => ReturnType<P>;
export type Overrides<T extends Table> = { readonly [K in keyof T]?: Override<T[K]> };

/** One switch's overrides of one site: a fault's, a variant's, or a fault of the test-control endpoint's. */
export interface Bend {
  readonly when:
    | { readonly fault: FaultId }
    | { readonly variant: VariantId }
    | { readonly controlFault: ControlFaultId };
  readonly site: Site<Table>;
  readonly overrides: Overrides<Table>;
}

/** The overrides of `site` by fault id: each fault names the points it bends. */
export function faultsAt<T extends Table>(at: Site<T>, byFault: { readonly [id in FaultId]?: Overrides<T> }): Bend[] {
  return Object.entries(byFault).map(([fault, overrides]) => ({
    when: { fault: fault as FaultId },
    site: at as unknown as Site<Table>,
    overrides: overrides as Overrides<Table>,
  }));
}

/** The overrides of `site` by conformant variant id. */
export function variantsAt<T extends Table>(
  at: Site<T>,
  byVariant: { readonly [id in VariantId]?: Overrides<T> },
): Bend[] {
  return Object.entries(byVariant).map(([variant, overrides]) => ({
    when: { variant: variant as VariantId },
    site: at as unknown as Site<Table>,
    overrides: overrides as Overrides<Table>,
  }));
}

/** The overrides of `site` by fault id of the test-control endpoint (./control-faults.ts). */
export function controlFaultsAt<T extends Table>(
  at: Site<T>,
  byFault: { readonly [id in ControlFaultId]?: Overrides<T> },
): Bend[] {
  return Object.entries(byFault).map(([controlFault, overrides]) => ({
    when: { controlFault: controlFault as ControlFaultId },
    site: at as unknown as Site<Table>,
    overrides: overrides as Overrides<Table>,
  }));
}

/** The points with nothing switched on: every site's defaults. */
export const conformant: Pick<Points, 'of'> = { of: <T extends Table>(at: Site<T>): T => at.defaults };

/**
 * The points of every site as the switches on make them behave. Faults change at run time, so a
 * route asks for its site's points on every request; the table is rebuilt only when the faults
 * switched on have changed.
 */
export class Points {
  readonly #bends: ReadonlyMap<Site<Table>, readonly Bend[]>;
  readonly #faults: FaultSet;
  readonly #variants: VariantSet;
  readonly #controlFaults: ReadonlySet<ControlFaultId>;
  readonly #built = new Map<Site<Table>, { version: number; table: Table }>();

  constructor(
    bends: readonly Bend[],
    faults: FaultSet,
    variants: VariantSet,
    controlFaults: ReadonlySet<ControlFaultId> = new Set(),
  ) {
    const bySite = new Map<Site<Table>, Bend[]>();
    for (const bend of bends) bySite.set(bend.site, [...(bySite.get(bend.site) ?? []), bend]);
    this.#bends = bySite;
    this.#faults = faults;
    this.#variants = variants;
    this.#controlFaults = controlFaults;
  }

  of<T extends Table>(at: Site<T>): T {
    const key = at as unknown as Site<Table>;
    const version = this.#faults.version;
    let built = this.#built.get(key);
    if (built?.version !== version) {
      built = { version, table: this.#bend(key) };
      this.#built.set(key, built);
    }
    return built.table as T;
  }

  #on(bend: Bend): boolean {
    const { when } = bend;
    if ('fault' in when) return this.#faults.has(when.fault);
    return 'variant' in when ? this.#variants.has(when.variant) : this.#controlFaults.has(when.controlFault);
  }

  /** The site's defaults, each wrapped by the overrides switched on, in the order they were registered. */
  #bend(at: Site<Table>): Table {
    const on = (this.#bends.get(at) ?? []).filter((bend) => this.#on(bend));
    if (on.length === 0) return at.defaults;
    const table: Table = { ...at.defaults };
    for (const bend of on) {
      for (const [name, override] of Object.entries(bend.overrides)) {
        const next = table[name];
        if (override === undefined || next === undefined) continue;
        table[name] = (input) => override(input, next);
      }
    }
    return table;
  }
}
