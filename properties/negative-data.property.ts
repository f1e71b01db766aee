/**
 * Negative (and positive) data against openapi.json's request schemas: generated bodies and
 * query strings that break CallCreate, HookCreate and the GET /cdrs query must be refused with
 * the spec's 400 (invalid_input; invalid_timestamp for an unparseable from/till) — never a 2xx,
 * never a 5xx, never an undocumented status; every HookCreate-valid body must be accepted.
 *
 * POST /calls never gets a body that could originate a call: every generated body is
 * schema-invalid (asserted with contract.checkSchema before sending) and breaks aiAgentId or
 * toNumber beyond any lenient reading (asserted with couldOriginate).
 *
 * Embedded reference only by default: against a remote target the properties' budget (~20
 * requests) goes to the CDR window and hook state machine properties; the conformance suites
 * cover each of these refusals with fixed examples there.
 *
 * Proof — verified failing against the reference server with (OCC_REFERENCE_FAULTS=<id>):
 *   POST /calls refuses schema-invalid bodies     calls-e164-not-validated
 *   POST /hooks refuses schema-invalid bodies     hooks-http-target-accepted, hooks-long-target-accepted,
 *                                                 hooks-unknown-event-accepted
 *   GET /cdrs refuses unparseable timestamps      cdrs-invalid-timestamp-500
 *   POST /hooks accepts schema-valid bodies       hooks-delete-200 (its clean-up DELETE breaks openapi.json),
 *                                                 hooks-target-scheme-case-sensitive (HTTPS:// targets),
 *                                                 json-content-type-exact-match (a charset parameter)
 */
import fc from 'fast-check';
import { describe } from 'vitest';
import { couldOriginate } from '../contract/origination.ts';
import type { Exchange } from '../harness/http/client.ts';
import { check, type CheckTools } from '../harness/checks/check.ts';
import { journalCreated, journalDeleted } from '../harness/run/journal.ts';
import { assertProperty } from '../harness/checks/property.ts';
import { session } from '../harness/run/session.ts';
import { brokenCallBody, brokenHookBody, validHookBody, type Body } from './arbitraries/bodies.ts';
import { unparseable } from './arbitraries/cdr-query.ts';
import { cdrVerdict } from './models/cdr-window-model.ts';
import { titles } from './titles.ts';

const target = session().target;
const numRuns = target.propertyNumRuns;
const TOKEN = 'all' as const;
/**
 * Requests a check of this file plans: none against a remote target, where it is skipped (the
 * budget counts planned requests).
 */
const planned = (perRun: number): number => (target.kind === 'remote' ? 0 : numRuns * perRun);

const codeOf = (exchange: Exchange): string | undefined => {
  const code = (exchange.json as { error?: unknown } | undefined)?.error;
  return typeof code === 'string' ? code : undefined;
};
const answer = (exchange: Exchange): string =>
  `${exchange.status}${codeOf(exchange) === undefined ? '' : ` ${codeOf(exchange)}`}`;
const shown = (text: string): string =>
  text.length > 160 ? `${JSON.stringify(text.slice(0, 160))}… (${text.length} characters)` : JSON.stringify(text);

/** The body as sent: generated JSON values are serialised here, texts go as they are. */
function rawOf(body: Body): string {
  return body.kind === 'text' ? body.text : JSON.stringify(body.value);
}

async function post(t: CheckTools, path: '/calls' | '/hooks', body: Body): Promise<Exchange> {
  return t.call({ method: 'POST', path, token: t.token(TOKEN), body: rawOf(body), contentType: 'application/json' });
}

/** A hook a broken target created anyway: journaled and deleted, so the run leaves nothing behind. */
async function undoCreated(t: CheckTools, exchange: Exchange): Promise<void> {
  const id = (exchange.json as { id?: unknown } | undefined)?.id;
  if (exchange.status !== 200 || typeof id !== 'string') return;
  await journalCreated(id, TOKEN);
  const deletion = await t.call({
    method: 'DELETE',
    path: `/hooks/${encodeURIComponent(id)}`,
    token: t.token(TOKEN),
    validate: false,
  });
  if (deletion.status === 204 || deletion.status === 404) await journalDeleted(id, TOKEN);
}

function expectRefused(t: CheckTools, exchange: Exchange, code: string, what: string): void {
  if (exchange.status !== 400 || codeOf(exchange) !== code) {
    const verdict =
      exchange.status !== undefined && exchange.status >= 500
        ? ' (a 5xx: the target broke on input it must refuse)'
        : exchange.status !== undefined && exchange.status < 300
          ? ' (a 2xx: the target accepted input the schema refuses)'
          : '';
    t.fail(`${what}: expected 400 ${code}, got ${answer(exchange)}${verdict}`);
  }
}

describe.skipIf(target.kind === 'remote')(
  'Negative data against openapi.json (embedded reference only: the remote budget goes to the other properties)',
  () => {
    const callsTitle = titles.callsNegative;
    check(
      callsTitle,
      {
        verifies: [
          'CALLS-INVALID-JSON',
          'CALLS-REQUIRED-FIELDS',
          'CALLS-AGENT-ID-NUMERIC',
          'CALLS-TO-NUMBER-E164',
          'CONTRACT-DOCUMENTED-STATUS',
        ],
        needs: { tokens: [TOKEN], agents: ['provisioned'] },
        requests: planned(1),
      },
      async (t) => {
        const { contract } = session();
        // Bodies whose one defect is toNumber carry an agent of the account, so 400 is the only right answer.
        await assertProperty(
          t,
          { title: callsTitle, requirement: 'CALLS-INVALID-JSON' },
          fc.asyncProperty(brokenCallBody(t.agent('provisioned')), async (body) => {
            // Guards, before anything is sent: the body breaks the schema, and no reading of it can dial.
            if (body.kind === 'json') {
              t.ensure(
                contract.checkSchema('CallCreate', body.value).length > 0,
                `generator bug: ${shown(rawOf(body))} is a valid CallCreate; it must not be sent`,
              );
              t.ensure(
                !couldOriginate(body.value),
                `generator bug: ${shown(rawOf(body))} could originate a call; it must not be sent`,
              );
            }
            const exchange = await post(t, '/calls', body);
            // Which of two applicable errors comes first is not specified: a numeric aiAgentId that
            // names none of the account's agents may be refused 404 ai_agent_not_found before the body's other defect.
            const agentId =
              body.kind === 'json' ? (body.value as { aiAgentId?: unknown } | null)?.aiAgentId : undefined;
            const unknownAgent =
              typeof agentId === 'string' &&
              /^[0-9]+$/.test(agentId) &&
              !Object.values(t.target.agents).includes(agentId);
            if (!(unknownAgent && exchange.status === 404 && codeOf(exchange) === 'ai_agent_not_found')) {
              expectRefused(t, exchange, 'invalid_input', `POST /calls with ${body.why} ${shown(rawOf(body))}`);
            }
          }),
        );
      },
    );

    const hooksTitle = titles.hooksNegative;
    check(
      hooksTitle,
      {
        verifies: [
          'HOOKS-INVALID-JSON',
          'HOOKS-REQUIRED-FIELDS',
          'HOOKS-EVENT-ENUM',
          'HOOKS-TARGET-HTTPS',
          'HOOKS-TARGET-MAX-512',
          'CONTRACT-DOCUMENTED-STATUS',
        ],
        needs: { tokens: [TOKEN] },
        // One POST per run, and one DELETE for a body a broken target accepts.
        requests: planned(2),
      },
      async (t) => {
        const { contract } = session();
        await assertProperty(
          t,
          { title: hooksTitle, requirement: 'HOOKS-INVALID-JSON' },
          fc.asyncProperty(brokenHookBody, async (body) => {
            if (body.kind === 'json')
              t.ensure(
                contract.checkSchema('HookCreate', body.value).length > 0,
                `generator bug: ${shown(rawOf(body))} is a valid HookCreate`,
              );
            const exchange = await post(t, '/hooks', body);
            try {
              expectRefused(t, exchange, 'invalid_input', `POST /hooks with ${body.why} ${shown(rawOf(body))}`);
            } finally {
              await undoCreated(t, exchange);
            }
          }),
        );
      },
    );

    const cdrsTitle = titles.cdrsNegative;
    check(
      cdrsTitle,
      {
        verifies: ['CDRS-INVALID-TIMESTAMP', 'CONTRACT-DOCUMENTED-STATUS'],
        needs: { tokens: ['read:cdrs'] },
        requests: planned(1),
      },
      async (t) => {
        const long = fc.integer({ min: 100, max: 2048 }).map((n) => `2026-01-01T00:00:00Z${'9'.repeat(n)}`);
        const broken = fc.oneof(
          unparseable,
          long,
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).map((s) => `2026-${s}`),
        );
        const side = fc.oneof(
          fc.constant<string | undefined>(undefined),
          broken,
          fc.constant(new Date(Date.now() - 86_400_000).toISOString()),
        );
        const query = fc
          .record({
            from: broken,
            till: side,
            limit: fc.oneof(
              fc.constant<string | undefined>(undefined),
              fc.constantFrom('0', '-1', 'x', '1.5', '100000', '10'),
              fc.string({ maxLength: 20 }),
            ),
            swap: fc.boolean(),
          })
          .map(({ from, till, limit, swap }) => (swap ? { from: till, till: from, limit } : { from, till, limit }));
        await assertProperty(
          t,
          { title: cdrsTitle, requirement: 'CDRS-INVALID-TIMESTAMP' },
          fc.asyncProperty(query, async (q) => {
            // The model agrees: an unparseable side beats every other rule (limit included).
            const now = Date.now();
            t.ensure(
              cdrVerdict(q, { earliestMs: now, latestMs: now }).kind === 'error',
              `generator bug: ${JSON.stringify(q)} is not refused by the model`,
            );
            const exchange = await t.call({ method: 'GET', path: '/cdrs', token: t.token('read:cdrs'), query: q });
            expectRefused(t, exchange, 'invalid_timestamp', `GET /cdrs ${shown(JSON.stringify(q))}`);
          }),
        );
      },
    );

    const validTitle = titles.hooksPositive;
    check(
      validTitle,
      {
        verifies: [
          'HOOKS-CREATE',
          'HOOKS-EVENT-ENUM',
          'HOOKS-TARGET-HTTPS',
          'HOOKS-TARGET-MAX-512',
          'CONTRACT-DOCUMENTED-STATUS',
        ],
        needs: { tokens: [TOKEN] },
        requests: planned(2),
      },
      async (t) => {
        const { contract } = session();
        // A JSON body is JSON whatever the media type's parameters say (RFC 8259 has no charset but UTF-8).
        const contentType = fc.constantFrom(
          'application/json',
          'application/json; charset=utf-8',
          'application/json;charset=UTF-8',
        );
        await assertProperty(
          t,
          { title: validTitle, requirement: 'HOOKS-CREATE' },
          fc.asyncProperty(validHookBody, contentType, async (body, type) => {
            const problems = contract.checkSchema('HookCreate', body);
            t.ensure(
              problems.length === 0,
              `generator bug: ${JSON.stringify(body)} is not a valid HookCreate: ${problems.join('; ')}`,
            );
            const exchange = await t.call({
              method: 'POST',
              path: '/hooks',
              token: t.token(TOKEN),
              body: JSON.stringify(body),
              contentType: type,
            });
            if (exchange.status !== 200)
              t.fail(
                `POST /hooks ${JSON.stringify(body)} (target_url of ${body.target_url.length} characters, ` +
                  `Content-Type: ${type}): a valid HookCreate must be accepted with 200, got ${answer(exchange)}`,
              );
            const { id } = exchange.json as { id: string };
            await journalCreated(id, TOKEN);
            const deletion = await t.call({ method: 'DELETE', path: `/hooks/${id}`, token: t.token(TOKEN) });
            if (deletion.status === 204 || deletion.status === 404) await journalDeleted(id, TOKEN);
            t.ensure(
              deletion.status === 204,
              `DELETE /hooks/${id} of the hook just created: expected 204, got ${answer(deletion)}`,
            );
          }),
        );
      },
    );
  },
);
