/** Faults of the OAuth token endpoint and its metadata (../routes/oauth.ts). ../faults.ts describes each. */
import { scopes as allScopes } from '../../contract/openapi.ts';
import { faultsAt } from '../points.ts';
import { oauth } from '../routes/oauth.ts';

export default faultsAt(oauth, {
  'oauth-bad-secret-accepted': { secretMatches: () => true },
  // A framework's default path, not the one served.
  'oauth-metadata-token-endpoint-elsewhere': {
    metadata: (server, next) => ({ ...next(server), token_endpoint: `${server.issuer}/token` }),
  },
  // Checked against every scope the service knows, not the client's registration.
  'oauth-token-widened': { grant: (request, next) => next({ ...request, registered: allScopes }) },
  // The answer built from the request narrowed to the registration, the token from the request as it came.
  'oauth-narrowed-answer-wide-token': {
    grant: ({ asked, registered }) => {
      const granted = asked.filter((s) => registered.includes(s));
      if (granted.length === 0) return { invalidScope: `scope not allowed for this client: ${asked.join(' ')}` };
      return { granted, minted: asked.filter((s) => allScopes.includes(s)), sayScope: true };
    },
  },
  // A token store whose TTL (15 min) is shorter than the lifetime the answer states.
  'nm-token-lives-shorter-than-stated': {
    lifetimeMs: (stated, next) => Math.min(next(stated), 15 * 60_000),
  },
  // no-cache for no-store: a cache may still store the answer (it only revalidates).
  'oauth-token-answer-no-cache': { tokenCacheControl: () => 'no-cache' },
  // The metadata served as a file download: its bytes are JSON, its media type is not.
  'oauth-metadata-octet-stream': { metadataMediaType: () => 'application/octet-stream' },
  // A closed parameter list: a token request with a parameter it does not know is invalid_request.
  'rel-oauth-unknown-parameter-refused': { unknownRefused: () => true },
});
