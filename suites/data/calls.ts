/** The probe tables of calls.suite.ts: near-miss bodies of POST /calls. */
import type { RequirementId } from '../../requirements/catalogue.ts';

/**
 * A valid E.164 number that rings nothing: +1 555 555-01xx is reserved for fiction. Every body
 * a correct target must refuse for another reason carries it, so a broken target that accepts
 * the body still cannot ring a real phone.
 */
export const FICTIONAL_E164 = '+15555550123';
export type Probe = { body: { raw?: string; contentType?: string; json?: unknown }; what: string };

/**
 * Near misses of every CallCreate field (docs/decisions.md, "Near-miss inputs"): each body breaks exactly
 * one rule and is valid otherwise (the provisioned agent, a fictional number), so the field
 * under test is the only reason to refuse it. Each list is ranked likeliest slip first: a run
 * whose budget cannot send it whole sends `perRun` of it at the default (the first every run, the
 * others in turns: harness/scheduling/rotation.ts); embedded, all of them.
 */
export const callValidationProbes: Array<{
  title: string;
  verifies: RequirementId;
  perRun: number;
  probes: (agent: string) => Probe[];
}> = [
  // An empty body (the framework's own error), null and an array (typeof "object"), then bodies
  // any JSON parser refuses.
  {
    title: 'a body that is not a JSON object',
    verifies: 'CALLS-INVALID-JSON',
    perRun: 1,
    probes: (agent) => [
      { body: { raw: '' }, what: 'an empty body sent as application/json' },
      { body: { raw: 'null' }, what: 'the JSON literal null' },
      { body: { json: [{ aiAgentId: agent, toNumber: FICTIONAL_E164 }] }, what: 'a JSON array instead of an object' },
      { body: { raw: `{"aiAgentId": "${agent}", "toNumber": "${FICTIONAL_E164}"` }, what: 'a truncated JSON body' },
      {
        body: { raw: `aiAgentId=${agent}&toNumber=${encodeURIComponent(FICTIONAL_E164)}` },
        what: 'a form-encoded body sent as application/json',
      },
    ],
  },
  {
    title: 'a body without aiAgentId, and one without toNumber',
    verifies: 'CALLS-REQUIRED-FIELDS',
    perRun: 1,
    probes: (agent) => [
      { body: { json: { toNumber: FICTIONAL_E164 } }, what: 'no aiAgentId' },
      { body: { json: { aiAgentId: agent } }, what: 'no toNumber' },
    ],
  },
  // parseInt's numeric prefix, a JSON number a loose type check lets through, letters, empty.
  {
    title: 'an aiAgentId that is not a numeric string',
    verifies: 'CALLS-AGENT-ID-NUMERIC',
    perRun: 1,
    probes: (agent) => [
      {
        body: { json: { aiAgentId: `${agent}a`, toNumber: FICTIONAL_E164 } },
        what: `aiAgentId "${agent}a" (a numeric prefix, then a letter)`,
      },
      { body: { json: { aiAgentId: Number(agent), toNumber: FICTIONAL_E164 } }, what: 'aiAgentId as a JSON number' },
      { body: { json: { aiAgentId: `agent-${agent}`, toNumber: FICTIONAL_E164 } }, what: 'aiAgentId "agent-…"' },
      { body: { json: { aiAgentId: '', toNumber: FICTIONAL_E164 } }, what: 'an empty aiAgentId' },
    ],
  },
  // A pattern without its $ anchor (a trailing letter, 16 digits), a missing +, 0 after +, then
  // spaces, letters and a JSON number most validators refuse. Every near miss keeps the
  // fictional number's digits: a target that repairs it rings nothing.
  {
    title: 'a toNumber that is not E.164',
    verifies: 'CALLS-TO-NUMBER-E164',
    perRun: 2,
    probes: (agent) => [
      { body: { json: { aiAgentId: agent, toNumber: `${FICTIONAL_E164}x` } }, what: 'toNumber with a trailing letter' },
      {
        body: { json: { aiAgentId: agent, toNumber: `${FICTIONAL_E164}45678` } },
        what: 'toNumber of 16 digits (E.164 allows 15)',
      },
      { body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164.slice(1) } }, what: 'toNumber without the +' },
      { body: { json: { aiAgentId: agent, toNumber: '+05555550123' } }, what: 'toNumber with 0 right after the +' },
      { body: { json: { aiAgentId: agent, toNumber: '+1 555-555-0123' } }, what: 'toNumber with spaces and dashes' },
      { body: { json: { aiAgentId: agent, toNumber: '555-CALL-ME' } }, what: 'toNumber "555-CALL-ME"' },
      {
        body: { json: { aiAgentId: agent, toNumber: Number(FICTIONAL_E164.slice(1)) } },
        what: 'toNumber as a JSON number',
      },
    ],
  },
  // 16 digits (a length left unchecked), a 00 prefix with spaces, letters, a JSON number.
  {
    title: 'a fromNumber that is not E.164',
    verifies: 'CALLS-FROM-NUMBER-E164',
    perRun: 1,
    probes: (agent) => [
      {
        body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, fromNumber: '+1442079460000123' } },
        what: 'fromNumber of 16 digits',
      },
      {
        body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, fromNumber: '0044 20 7946 0000' } },
        what: 'fromNumber "0044 20 7946 0000"',
      },
      {
        body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, fromNumber: '+1415555O100' } },
        what: 'fromNumber with a letter O for a zero',
      },
      {
        body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, fromNumber: 14155550100 } },
        what: 'fromNumber as a JSON number',
      },
    ],
  },
  // An array and null (both typeof "object"), then a string and a number.
  {
    title: 'a metadata that is not an object',
    verifies: 'CALLS-METADATA-OBJECT',
    perRun: 1,
    probes: (agent) => [
      {
        body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, metadata: [{ campaign: 42 }] } },
        what: 'metadata as an array',
      },
      { body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, metadata: null } }, what: 'metadata null' },
      {
        body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, metadata: 'campaign=42' } },
        what: 'metadata as a string',
      },
      { body: { json: { aiAgentId: agent, toNumber: FICTIONAL_E164, metadata: 42 } }, what: 'metadata as a number' },
    ],
  },
];
