/**
 * Conformant variants of the standards' readings (docs/relations.md): each a reading a standard
 * allows and the reference does not take. ../variants.ts describes each.
 */
import { variantsAt } from '../points.ts';
import { getCdrs } from '../routes/cdrs.ts';
import { jsonBody } from '../routes/json-body.ts';
import { repeatedMembers } from '../faults/relations.ts';

export default [
  // A repeated query parameter read as its first value, validated as if given once.
  ...variantsAt(getCdrs, {
    'ambig-query-repeated-first': {
      query: (input, next) => (Array.isArray(input.value) ? String(input.value[0]) : next(input)),
    },
  }),
  // RFC 8259 §4 leaves a repeated member's meaning unpredictable: refused as a body that fails validation.
  ...variantsAt(jsonBody, {
    'ambig-json-duplicate-refused': {
      read: (request, next) => {
        const repeated = repeatedMembers(String(request.body ?? ''));
        return repeated.length === 0
          ? next(request)
          : { ok: false as const, message: `${repeated[0]} is given more than once` };
      },
    },
  }),
];
