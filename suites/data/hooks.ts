/** The probe tables of hooks.suite.ts: near-miss ids of DELETE /hooks/{id} and near-miss bodies of POST /hooks. */
import { randomUUID } from 'node:crypto';
import { limits } from '../../contract/openapi.ts';
import type { RequirementId } from '../../requirements/catalogue.ts';
import { urlOfLength } from '../rules/hooks.ts';

export const NOWHERE = 'https://example.invalid';

/** A random UUID with its version digit replaced (1: time-based), otherwise well-formed. */
function uuidOfVersion(version: number): string {
  const id = randomUUID();
  return `${id.slice(0, 14)}${version}${id.slice(15)}`;
}

/**
 * Near misses of DELETE /hooks/{id} (docs/decisions.md, "Near-miss inputs"): strings one step from a UUID,
 * and a well-formed UUID of another version, which "UUID v4" and "id not a UUID" leave open.
 *
 * Every probe table here is ranked likeliest slip first: a run whose budget cannot send a whole
 * list sends the first every run and the others in turns (harness/scheduling/rotation.ts). Here a
 * UUID pattern without anchors (one digit more, braces) before a lookup that 404s anything.
 */
export const deleteIdProbes: Array<{ id: string; what: string; either?: true }> = [
  { id: `${randomUUID()}0`, what: 'a UUID with one digit more' },
  { id: `{${randomUUID()}}`, what: 'a UUID in braces' },
  { id: 'not-a-uuid', what: 'not-a-uuid' },
  { id: randomUUID().slice(0, 35), what: 'a UUID cut to 35 characters' },
  { id: `${randomUUID().slice(0, 35)}g`, what: 'a UUID whose last digit is g' },
  { id: uuidOfVersion(1), what: 'a well-formed version-1 UUID', either: true },
];

export type Probe = { body: { raw?: string; json?: unknown }; what: string };

/**
 * Near misses of every HookCreate field (docs/decisions.md, "Near-miss inputs"), each breaking one rule of a
 * body otherwise valid. Remotely `perRun` of them are sent per run (harness/scheduling/rotation.ts).
 */
export const hookValidationProbes: Array<{ title: string; verifies: RequirementId; perRun: number; probes: Probe[] }> =
  [
    // Truncated, form-encoded and empty bodies sent as application/json, and JSON that is not an object.
    {
      title: 'a body that is not a JSON object',
      verifies: 'HOOKS-INVALID-JSON',
      perRun: 1,
      // An empty body answered by the framework's own error, then an array passing typeof "object".
      probes: [
        { body: { raw: '' }, what: 'an empty body sent as application/json' },
        {
          body: { json: [{ event: 'call.ended', target_url: `${NOWHERE}/x` }] },
          what: 'a JSON array instead of an object',
        },
        { body: { raw: `{"event": "call.ended", "target_url": "${NOWHERE}/x"` }, what: 'a truncated JSON body' },
        {
          body: { raw: `event=call.ended&target_url=${encodeURIComponent(`${NOWHERE}/x`)}` },
          what: 'a form-encoded body sent as application/json',
        },
      ],
    },
    {
      title: 'a body without event, and one without target_url',
      verifies: 'HOOKS-REQUIRED-FIELDS',
      perRun: 1,
      probes: [
        { body: { json: { target_url: `${NOWHERE}/x` } }, what: 'no event' },
        { body: { json: { event: 'call.ended' } }, what: 'no target_url' },
      ],
    },
    // Another event, another case, a space, an underscore, a list.
    {
      title: 'an event outside the enumeration',
      verifies: 'HOOKS-EVENT-ENUM',
      perRun: 2,
      // A case-insensitive comparison, a list String() turns into the name, a trim, then plain typos.
      probes: [
        {
          body: { json: { event: 'CALL.ENDED', target_url: `${NOWHERE}/x` } },
          what: 'event "CALL.ENDED" (the enumeration is case-sensitive)',
        },
        {
          body: { json: { event: ['call.ended'], target_url: `${NOWHERE}/x` } },
          what: 'event ["call.ended"] (a list, not a string)',
        },
        {
          body: { json: { event: ' call.ended', target_url: `${NOWHERE}/x` } },
          what: 'event " call.ended" (a leading space)',
        },
        { body: { json: { event: 'call.started', target_url: `${NOWHERE}/x` } }, what: 'event "call.started"' },
        { body: { json: { event: 'Call.Ended', target_url: `${NOWHERE}/x` } }, what: 'event "Call.Ended"' },
        { body: { json: { event: 'call_ended', target_url: `${NOWHERE}/x` } }, what: 'event "call_ended"' },
      ],
    },
    // http (no scheme check at all), then a check of the prefix "https:" only (no host), a list
    // String() turns into a URL, an empty host; no scheme, scheme-relative and not a URI are
    // refused by most URL parsers anyway.
    {
      title: 'a target_url that is not an https URI',
      verifies: 'HOOKS-TARGET-HTTPS',
      perRun: 2,
      probes: [
        { body: { json: { event: 'call.ended', target_url: 'http://example.invalid/x' } }, what: 'an http target_url' },
        {
          body: { json: { event: 'call.ended', target_url: 'https:example.invalid' } },
          what: 'target_url "https:example.invalid" (no //, so no host)',
        },
        {
          body: { json: { event: 'call.ended', target_url: [`${NOWHERE}/x`] } },
          what: 'target_url as a list of one URL',
        },
        {
          body: { json: { event: 'call.ended', target_url: 'https:///hooks/x' } },
          what: 'target_url "https:///hooks/x" (an empty host)',
        },
        {
          body: { json: { event: 'call.ended', target_url: 'example.invalid/x' } },
          what: 'a target_url without a scheme',
        },
        {
          body: { json: { event: 'call.ended', target_url: '//example.invalid/x' } },
          what: 'a scheme-relative target_url',
        },
        {
          body: { json: { event: 'call.ended', target_url: 'https://exa mple.invalid/<hook>' } },
          what: 'a target_url that is not a URI',
        },
      ],
    },
    {
      title: 'a target_url of 513 characters',
      verifies: 'HOOKS-TARGET-MAX-512',
      perRun: 1,
      probes: [
        {
          body: { json: { event: 'call.ended', target_url: urlOfLength(NOWHERE, limits.targetUrlMaxLength + 1) } },
          what: 'a 513-character target_url',
        },
        {
          body: {
            json: {
              event: 'call.ended',
              target_url: urlOfLength('HTTPS://example.invalid', limits.targetUrlMaxLength + 1),
            },
          },
          what: 'a 513-character target_url written HTTPS://',
        },
      ],
    },
  ];
