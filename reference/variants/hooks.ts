/** Conformant variants of POST /hooks (../routes/hooks.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { postHooks } from '../routes/hooks.ts';
import type { Subscription } from '../webhooks/dispatcher.ts';

export default variantsAt(postHooks, {
  // The account's call activity happens to coincide with every subscription: one event of the new
  // hook's kind goes, through the normal path, to EVERY active subscription of that kind of the
  // account (the new one included), its first attempt started before POST /hooks answers. Not an
  // event of the creation (that would reach the new hook alone: fault hooks-create-emits-event).
  'deliver-on-subscribe': {
    subscribe: (wanted, next) => {
      const activity = (hook: Subscription): Subscription => {
        wanted.store.emit(wanted.account, hook.event, {});
        return hook;
      };
      const made = next(wanted);
      return made instanceof Promise ? made.then(activity) : activity(made);
    },
  },
});
