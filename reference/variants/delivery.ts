/** Conformant variants of webhook delivery (../webhooks/dispatcher.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { delivery } from '../webhooks/dispatcher.ts';

export default variantsAt(delivery, {
  'control-virtual-clock-signing': { signedAt: ({ virtual }) => virtual },
});
