/** Conformant variants of OAuth (../routes/oauth.ts). ../variants.ts describes each. */
import { variantsAt } from '../points.ts';
import { oauth } from '../routes/oauth.ts';

export default variantsAt(oauth, {
  'oauth-basic-only': { authMethods: () => ['client_secret_basic'] },
  // RFC 6749 §3.3: the request narrowed to the registration, said in `scope`; §5.1: `scope` optional
  // when it is exactly the one requested.
  'oauth-scope-narrowed': {
    grant: ({ asked, registered }) => {
      const granted = asked.filter((s) => registered.includes(s));
      if (granted.length === 0) return { invalidScope: `scope not allowed for this client: ${asked.join(' ')}` };
      return { granted, minted: granted, sayScope: granted.length !== asked.length };
    },
  },
});
