/** Faults of GET /me (../routes/me.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { getMe } from '../routes/me.ts';

export default faultsAt(getMe, {
  'me-wrong-status': { status: () => 201 },
  'me-missing-field': {
    body: (account, next) => {
      const { primaryContactEmail: _, ...rest } = next(account);
      return rest;
    },
  },
  // The contact e-mail as typed in the portal.
  'me-email-not-validated': {
    body: (account, next) => {
      const body = next(account);
      return { ...body, primaryContactEmail: body.primaryContactEmail?.replace('@', ' at ') };
    },
  },
  'suspended-not-refused': { suspended: () => false },
});
