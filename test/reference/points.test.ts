/**
 * The points of the reference (reference/points.ts): a site's defaults are its conformant
 * behaviour; the overrides of the faults and variants switched on wrap them, in the order they were
 * registered, and follow the faults switched at run time.
 */
import { describe, expect, it } from 'vitest';
import { faults as catalogue, FaultSet } from '../../reference/faults.ts';
import { faultBends } from '../../reference/faults/index.ts';
import { faultsAt, Points, site, variantsAt } from '../../reference/points.ts';
import { VariantSet } from '../../reference/variants.ts';
import { variantBends } from '../../reference/variants/index.ts';

const counter = site('a test site', {
  double: (n: number): number => 2 * n,
  label: (): string => 'conformant',
});

const bends = [
  ...variantsAt(counter, { 'cdrs-descending': { label: () => 'variant' } }),
  ...faultsAt(counter, {
    'me-wrong-status': { double: (n, next) => next(n) + 1 },
    'me-missing-field': { double: (n, next) => next(n) * 10 },
  }),
];

describe('points', () => {
  it('are the defaults while nothing that bends them is on', () => {
    const points = new Points(bends, new FaultSet(), new VariantSet());
    expect(points.of(counter)).toBe(counter.defaults);
    expect(points.of(counter).double(3)).toBe(6);
  });

  it('wrap the default with each override switched on, the first registered innermost', () => {
    const points = new Points(bends, new FaultSet(['me-missing-field', 'me-wrong-status']), new VariantSet());
    expect(points.of(counter).double(3)).toBe((2 * 3 + 1) * 10);
    expect(points.of(counter).label()).toBe('conformant');
  });

  it('follow the faults switched at run time, and the variants fixed at start', () => {
    const faults = new FaultSet();
    const points = new Points(bends, faults, new VariantSet(['cdrs-descending']));
    expect(points.of(counter).label()).toBe('variant');
    expect(points.of(counter).double(1)).toBe(2);
    faults.enable(['me-wrong-status']);
    expect(points.of(counter).double(1)).toBe(3);
    faults.disable(['me-wrong-status']);
    expect(points.of(counter).double(1)).toBe(2);
  });

  it("the reference's overrides name faults of the catalogue and points of their sites", () => {
    const known = new Set(catalogue.map((fault) => fault.id));
    for (const bend of [...faultBends, ...variantBends]) {
      if ('fault' in bend.when) expect(known.has(bend.when.fault), bend.when.fault).toBe(true);
      for (const name of Object.keys(bend.overrides))
        expect(Object.keys(bend.site.defaults), `${bend.site.name}: ${name}`).toContain(name);
    }
  });
});
