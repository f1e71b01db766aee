/** Conformant variants of authentication (../routes/authentication.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { authentication } from '../routes/authentication.ts';

export default variantsAt(authentication, {
  'control-scope-401-not-a-use': { scopeRefusalIsUse: () => false },
});
