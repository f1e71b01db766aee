/**
 * The protocol lint's verdicts: what RFC 9110, RFC 9112, RFC 8259, RFC 6749 and RFC 6750 require of
 * every answer, token answer and delivery this run already exchanged (contract/standards/; the
 * rules and their sentences: docs/standards.md). Judged last, so the tally holds the whole run; it
 * sends nothing of its own unless the run made no message of a requirement's kind (a run of a few
 * checks, the self-proof): then the smallest exchange of that kind, so a verdict is never vacuous.
 */
import { describe } from 'vitest';
import { openapi } from '../contract/openapi.ts';
import { lintRules } from '../contract/standards/registry.ts';
import type { LintRequirement } from '../contract/standards/rule.ts';
import { type CheckTools, check } from '../harness/checks/check.ts';
import type { Needs } from '../harness/checks/needs.ts';
import { runTallies } from '../harness/run/tallies.ts';
import { awaitEmitted } from '../harness/seams/emitted-arrivals.ts';
import { subscribe } from '../harness/seams/subscriptions.ts';
import { NOWHERE } from './data/hooks.ts';
import { basicAuthorization } from './rules/oauth.ts';
import { describeFindings, lintOf } from './rules/standards.ts';

/** The requirement's rules, their ids: a rule no message of the run was of the kind of is named in the verdict. */
const rulesOf = (requirement: LintRequirement) =>
  lintRules.filter((rule) => rule.requirement === requirement).map((rule) => rule.id);
/** The requirement's tally over every exchange of the run, every worker's (harness/run/tallies.ts). */
async function tallyOf(requirement: LintRequirement) {
  const { api, receiver } = await runTallies();
  return lintOf(requirement, [api, receiver], rulesOf(requirement));
}

/** A path of the contract and a method it does not document there: what draws a 405, if any. */
function undocumentedMethod(): { path: string; method: string } {
  const [path, item] = Object.entries(openapi.paths as Record<string, Record<string, unknown>>)[0]!;
  const method = ['PUT', 'PATCH', 'DELETE', 'POST'].find((m) => !(m.toLowerCase() in item))!;
  return { path, method };
}

/** A 200, a 401 and whatever an undocumented method draws: answers of each class without a token. */
async function sampleAnswers(t: CheckTools): Promise<void> {
  await t.call({ method: 'GET', path: '/openapi.json', validate: false });
  await t.call({ method: 'GET', path: '/me' });
  const { path, method } = undocumentedMethod();
  await t.call({ method, path, validate: false });
}

const tokenUrl = (t: CheckTools) => `${t.target.authUrl}/oauth/token`;

/** A client_credentials grant by the configured client over HTTP Basic, with `secret`. */
const basicGrant = (t: CheckTools, secret: string) =>
  t.call({
    method: 'POST',
    path: tokenUrl(t),
    form: { grant_type: 'client_credentials' },
    authorization: basicAuthorization(t.target.oauth!.clientId, secret),
  });

interface LintCheck {
  readonly title: string;
  readonly requirement: LintRequirement;
  readonly needs?: Needs;
  /** Requests of the sample, sent only when the run made no message of the kind. */
  readonly requests: number;
  /** The kind of message the rules read, in words (a verdict that saw none says so). */
  readonly kind: string;
  /** Rules whose kind of message the sample draws when the run drew none (default: every rule idle). */
  readonly sampled?: readonly string[];
  sample(t: CheckTools): Promise<void>;
  /** Seeing no message of the kind after the sample holds the rule (nothing it binds was sent). */
  readonly vacuousHolds?: true;
}

const lintChecks: readonly LintCheck[] = [
  {
    title: 'Every 401 of the API and of its token endpoint carries a WWW-Authenticate challenge of its scheme',
    requirement: 'STD-HTTP-AUTH-CHALLENGE',
    requests: 2,
    kind: '401 answers',
    sampled: ['LINT-9110-401-CHALLENGE', 'LINT-6749-401-CHALLENGE'],
    async sample(t) {
      await t.call({ method: 'GET', path: '/me' });
      if (t.target.oauth !== undefined && t.target.authUrl !== undefined) {
        await basicGrant(t, 'not-the-secret');
      }
    },
  },
  {
    title: 'Every 405 answer names the methods its resource supports in Allow',
    requirement: 'STD-HTTP-ALLOW-405',
    requests: 1,
    kind: '405 answers',
    vacuousHolds: true,
    async sample(t) {
      const { path, method } = undocumentedMethod();
      await t.call({ method, path, validate: false });
    },
  },
  {
    title: 'Every answer frames its content as RFC 9110 and RFC 9112 require (Content-Length, Transfer-Encoding, 204)',
    requirement: 'STD-HTTP-MESSAGE-FRAMING',
    needs: { tokens: ['all'] },
    requests: 2,
    kind: 'answers',
    sampled: ['LINT-9110-NO-LENGTH-ON-204', 'LINT-9112-NO-TE-ON-204'],
    async sample(t) {
      const hook = await subscribe(t, { event: 'call.ended', targetUrl: `${NOWHERE}/standards-sample` });
      await t.call({ method: 'DELETE', path: `/hooks/${hook.id}`, token: t.token('all') });
    },
  },
  {
    title: 'Every field the target sends holds its grammar, and a singleton field comes once',
    requirement: 'STD-HTTP-FIELD-SYNTAX',
    requests: 3,
    kind: 'answers',
    sample: sampleAnswers,
  },
  {
    title: 'Every 2xx, 3xx and 4xx answer is dated, and every HTTP-date is an IMF-fixdate',
    requirement: 'STD-HTTP-DATE',
    requests: 3,
    kind: '2xx-4xx answers',
    sample: sampleAnswers,
  },
  {
    title: 'Every JSON text the target sends is UTF-8 without a byte order mark',
    requirement: 'STD-JSON-TEXT',
    requests: 1,
    kind: 'JSON answers and deliveries',
    sample: (t) => t.call({ method: 'GET', path: '/me' }).then(() => {}),
  },
  {
    title: 'Every token answer is the JSON object RFC 6749 §5.1 defines, not to be stored',
    requirement: 'STD-OAUTH-TOKEN-ANSWER',
    needs: { oauth: true },
    requests: 1,
    kind: 'token answers',
    async sample(t) {
      await basicGrant(t, t.target.oauth!.clientSecret);
    },
  },
  {
    title: 'Every refusal of the token endpoint is the error answer RFC 6749 §5.2 defines',
    requirement: 'STD-OAUTH-ERROR-ANSWER',
    needs: { oauth: true },
    requests: 1,
    kind: 'token refusals (400, 401)',
    async sample(t) {
      const form = { grant_type: 'client_credentials', client_id: t.target.oauth!.clientId, client_secret: 'wrong' };
      await t.call({ method: 'POST', path: tokenUrl(t), form });
    },
  },
];

/** One delivery drawn to the run's receiver (a subscription, an emitted event), read so the receiver lints it. */
async function sampleDelivery(t: CheckTools): Promise<void> {
  const hook = await subscribe(t, { event: 'call.ended' });
  const emitted = await t.control.emit('call.ended');
  await awaitEmitted(t, hook, [emitted.eventId], 'the standards sample subscription');
  await t.receiver.deliveries(hook.path);
}

describe('What the standards under the spec require of every message this run exchanged', () => {
  for (const c of lintChecks)
    check(
      c.title,
      // A full run draws every kind itself and sends no sample: neither the budget nor the full set
      // plans one. A run of a few checks (--only) may send up to `c.requests`, through the throttle.
      { verifies: [c.requirement], requests: 0, ...(c.needs ? { needs: c.needs } : {}) },
      async (t) => {
        const before = await tallyOf(c.requirement);
        if (before.applied === 0 || (c.sampled ?? []).some((rule) => before.idle.includes(rule))) await c.sample(t);
        const { applied, broken, must, idle } = await tallyOf(c.requirement);
        if (applied === 0 && c.vacuousHolds) {
          t.observe(c.requirement, `the run drew no ${c.kind}: nothing for the rule to bind`);
          return;
        }
        if (applied === 0) t.notVerifiable(`the run drew no ${c.kind}, even from its own sample`);
        const quiet = idle.length === 0 ? '' : `; no message of the kind of ${idle.join(', ')}`;
        t.observe(c.requirement, `${applied} ${c.kind} read, ${broken} broke a rule${quiet}`);
        t.verify(c.requirement, must.length === 0, describeFindings(must, broken, applied));
      },
    );

  check(
    'Every delivery is a well-formed HTTP/1.1 request of a JSON text (the webhook sender is an HTTP client)',
    {
      verifies: ['STD-WEBHOOK-HTTP-CLIENT', 'STD-JSON-TEXT'],
      needs: { tokens: ['all'], control: ['event-emitted'], webhooks: true },
      requests: 0,
    },
    async (t) => {
      const deliveries = async (requirement: LintRequirement) => lintOf(requirement, [(await runTallies()).receiver]);
      if ((await deliveries('STD-WEBHOOK-HTTP-CLIENT')).applied === 0) await sampleDelivery(t);
      const sender = await deliveries('STD-WEBHOOK-HTTP-CLIENT');
      if (sender.applied === 0) t.notVerifiable('no delivery reached the receiver, even from its own sample');
      const json = await deliveries('STD-JSON-TEXT');
      t.observe('STD-WEBHOOK-HTTP-CLIENT', `${sender.applied} deliveries read, ${sender.broken} broke a rule`);
      t.verify(
        'STD-WEBHOOK-HTTP-CLIENT',
        sender.must.length === 0,
        describeFindings(sender.must, sender.broken, sender.applied),
      );
      t.verify('STD-JSON-TEXT', json.must.length === 0, describeFindings(json.must, json.broken, json.applied));
    },
  );

  check(
    'What the standards recommend (SHOULD) is recorded, never failed',
    { verifies: ['STD-SHOULD-OBSERVED'], requests: 0 },
    async (t) => {
      const { applied, broken, should } = await tallyOf('STD-SHOULD-OBSERVED');
      const seen = broken === 0 ? `${applied} messages read, none leaves a recommendation undone` : undefined;
      t.observe('STD-SHOULD-OBSERVED', seen ?? describeFindings(should, broken, applied));
    },
  );
});
