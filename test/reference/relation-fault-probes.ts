/**
 * For each fault of the standards' block (reference/faults/relations.ts): does the deviation show?
 * Spread into the probes of ./faults.test.ts, which switches each fault on and asks its probe.
 */
import type { FaultId } from '../../reference/faults.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { api, http } from './helpers.ts';

type S = ReferenceServer;
const TARGET = 'https://127.0.0.1:1/never';

/** A client_credentials grant by the reference's OAuth client, with the form's extra pairs. */
const grant = (s: S, extra: string) =>
  http('POST', `${s.authUrl}/oauth/token`, {
    body:
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: s.fixtures.oauth.clientId,
        client_secret: s.fixtures.oauth.clientSecret,
      }).toString() + extra,
    contentType: 'application/x-www-form-urlencoded',
  });

export const relationFaultProbes: Partial<Record<FaultId, (s: S) => Promise<boolean>>> = {
  'rel-auth-scheme-case-sensitive': async (s) =>
    (await api(s, 'GET', '/me', { headers: { authorization: `bearer ${s.fixtures.tokens.all}` } })).status === 401,
  'rel-auth-split-one-space': async (s) =>
    (await api(s, 'GET', '/me', { headers: { authorization: `Bearer  ${s.fixtures.tokens.all}` } })).status === 401,
  'rel-authorization-name-exact': async (s) =>
    (await api(s, 'GET', '/me', { headers: { AUTHORIZATION: `Bearer ${s.fixtures.tokens.all}` } })).status === 401,
  'rel-media-type-case-sensitive': async (s) =>
    (
      await api(s, 'POST', '/hooks', {
        token: s.fixtures.tokens.all,
        body: JSON.stringify({ event: 'call.ended', target_url: TARGET }),
        contentType: 'Application/JSON',
      })
    ).status === 400,
  'rel-json-raw-text-check': async (s) =>
    (
      await api(s, 'POST', '/hooks', {
        token: s.fixtures.tokens.all,
        body: `{"event":"call.ended","target_url":"${TARGET.replaceAll('/', '\\/')}"}`,
        contentType: 'application/json',
      })
    ).status === 400,
  'rel-path-matched-undecoded': async (s) =>
    (await api(s, 'GET', '/%6De', { token: s.fixtures.tokens.all })).status === 404,
  'rel-reserved-decoded-before-routing': async (s) =>
    (await api(s, 'GET', '/me%3F', { token: s.fixtures.tokens.all })).status === 200,
  'rel-head-not-routed': async (s) => (await api(s, 'HEAD', '/me', { token: s.fixtures.tokens.all })).status === 404,
  'principals-cache-keyed-by-account': async (s) => {
    await api(s, 'GET', '/balance', { token: s.fixtures.tokens.all });
    return (await api(s, 'GET', '/balance', { token: s.fixtures.tokens['read:cdrs'] })).status === 200;
  },
  'rel-oauth-empty-scope-refused': async (s) => (await grant(s, '&scope=')).status === 400,
};
