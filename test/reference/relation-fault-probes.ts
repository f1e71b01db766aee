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

/** A thirty-day window ending at the reference's now, as a query (more records than the maximum limit). */
const wide = () => {
  const till = Date.now() - 2 * 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  return `from=${iso(till - 30 * 86_400_000)}&till=${iso(till)}`;
};
const rows = async (s: S, query: string) =>
  ((await api(s, 'GET', `/cdrs?${query}`, { token: s.fixtures.tokens.all })).json as { calls?: unknown[] }).calls
    ?.length ?? 0;

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
  'rel-accept-exact-match-406': async (s) =>
    (await api(s, 'GET', '/me', { token: s.fixtures.tokens.all, headers: { accept: '*/*' } })).status === 406,
  'rel-if-match-412-before-auth': async (s) =>
    (
      await api(s, 'DELETE', `/hooks/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`, {
        headers: { 'if-match': '"x"' },
      })
    ).status === 412,
  // Two tokens of one account at the same moment: the one without read:balance joins the other's read.
  'principals-cache-keyed-by-account': async (s) => {
    const [, narrow] = await Promise.all([
      api(s, 'GET', '/balance', { token: s.fixtures.tokens.all }),
      api(s, 'GET', '/balance', { token: s.fixtures.tokens['read:cdrs'] }),
    ]);
    return narrow.status === 200;
  },
  'ambig-query-first-validated-last-used': async (s) => (await rows(s, `${wide()}&limit=1&limit=5000`)) > 1000,
  'ambig-empty-limit-unbounded': async (s) => (await rows(s, `${wide()}&limit=`)) > 100,
  'ambig-json-duplicate-422': async (s) =>
    (
      await api(s, 'POST', '/hooks', {
        token: s.fixtures.tokens.all,
        body: `{"event":"call.ended","event":"call.ended","target_url":"${TARGET}"}`,
        contentType: 'application/json',
      })
    ).status === 422,
  // Two lines answered as neither alone: another account's token first (its agents), one without read:agents last.
  'ambig-authorization-scopes-of-first-line': async (s) => {
    const other = `Bearer ${s.fixtures.tokens.noDialer}`;
    const twice = await api(s, 'GET', '/agents', {
      headers: { Authorization: other, authorization: `Bearer ${s.fixtures.tokens['read:cdrs']}` },
    });
    const alone = await api(s, 'GET', '/agents', { headers: { authorization: other } });
    return twice.status === 200 && twice.rawBody !== alone.rawBody;
  },
  'ambig-oauth-repeated-first-wins': async (s) => (await grant(s, '&grant_type=client_credentials')).status === 200,
  'ambig-oauth-body-credentials-win': async (s) => {
    const wrong = Buffer.from(`${s.fixtures.oauth.clientId}:wrong`).toString('base64');
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: s.fixtures.oauth.clientId,
      client_secret: s.fixtures.oauth.clientSecret,
    }).toString();
    const contentType = 'application/x-www-form-urlencoded';
    const headers = { authorization: `Basic ${wrong}` };
    return (await http('POST', `${s.authUrl}/oauth/token`, { body, contentType, headers })).status === 200;
  },
  'rel-oauth-empty-scope-refused': async (s) => (await grant(s, '&scope=')).status === 400,
  'rel-oauth-unknown-parameter-refused': async (s) => (await grant(s, '&occ_unrecognized=1')).status === 400,
};
