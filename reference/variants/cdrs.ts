/** Conformant variants of GET /cdrs (../routes/cdrs.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { getCdrs } from '../routes/cdrs.ts';

export default variantsAt(getCdrs, {
  // "24 hours before now", read literally even when till is given.
  'cdrs-default-from-now': {
    defaultFrom: (window, next) => (window.tillGiven ? next({ ...window, till: window.now }) : next(window)),
  },
  'cdrs-till-inclusive': {
    range: (window, next) => {
      const range = next(window);
      return { ...range, edges: range.edges[0] === '[' ? ('[]' as const) : ('(]' as const) };
    },
  },
  'cdrs-from-exclusive': { range: (window, next) => ({ ...next(window), edges: '(]' as const }) },
  'cdrs-descending': {
    select: (selection, next) => {
      const all = next({ ...selection, limit: Number.POSITIVE_INFINITY });
      return { rows: all.rows.reverse().slice(0, selection.limit), inRange: all.inRange };
    },
  },
  'cdrs-count-total': { body: (selected, next) => ({ ...next(selected), count: selected.inRange }) },
});
