/** Faults of GET /balance (../routes/balance.ts). ../faults.ts describes each. */
import { faultsAt } from '../points.ts';
import { getBalance } from '../routes/balance.ts';

export default faultsAt(getBalance, {
  'balance-upstream-failure-hidden': { servesStale: () => true },
  'balance-wrong-type': {
    body: (snapshot, next) => ({ ...next(snapshot), balance: snapshot.account.balance.toFixed(2) }),
  },
  // A form value passed through.
  'balance-flags-as-strings': {
    body: (snapshot, next) => {
      const body = next(snapshot);
      return { ...body, blocked: String(body.blocked), stale: String(body.stale) };
    },
  },
  'balance-renamed-field': {
    body: (snapshot, next) => {
      const { balance, ...rest } = next(snapshot);
      return { ...rest, amount: balance };
    },
  },
});
