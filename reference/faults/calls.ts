/** Faults of POST /calls (../routes/calls.ts). ../faults.ts describes each. */
import { E164_PATTERN } from '../../contract/openapi.ts';
import { faultsAt } from '../points.ts';
import { postCalls } from '../routes/calls.ts';
import { events } from '../store.ts';

/** callId → the metadata its request carried, under nm-metadata-in-cdr; bounded. */
const metadataOf = new Map<string, unknown>();
const METADATA_KEPT = 10_000;

/** The zero of each block of digits a Unicode-aware \d admits (Arabic-Indic, Persian, Devanagari, full-width). */
const DIGIT_ZEROS = [0x0660, 0x06f0, 0x0966, 0xff10];

function asciiDigit(digit: string): string {
  const code = digit.codePointAt(0)!;
  const zero = DIGIT_ZEROS.find((z) => code >= z && code <= z + 9);
  return zero === undefined ? digit : String(code - zero);
}

const UNANCHORED_E164 = new RegExp(E164_PATTERN.source.replace(/^\^|\$$/g, ''));
const CALLER_ID_E164 = new RegExp(E164_PATTERN.source.replace('{1,14}', '{0,14}'));

const route = faultsAt(postCalls, {
  // parseInt: "12a" and the number 12 are agent 12.
  'calls-agent-id-parseint': {
    agentId: (value, next) =>
      (typeof value === 'string' || typeof value === 'number') && !Number.isNaN(parseInt(String(value), 10))
        ? next(String(parseInt(String(value), 10)))
        : next(value),
  },
  // Read as a number: "+70418" and "70418.0" are agent 70418.
  'nm-numeric-id-lenient': {
    agentId: (value, next) =>
      next(typeof value === 'string' && /^\+?[0-9]+(\.0+)?$/.test(value) ? String(Number(value)) : value),
  },
  'calls-e164-not-validated': { e164: () => true },
  'calls-e164-unanchored': { e164: ({ number }) => UNANCHORED_E164.test(number) },
  // Python's re: `$` also matches before a final newline.
  'nm-trailing-newline-accepted': {
    e164: (checked, next) => next({ ...checked, number: checked.number.replace(/\n$/, '') }),
  },
  'nm-e164-trimmed': { e164: (checked, next) => next({ ...checked, number: checked.number.trim() }) },
  'nm-unicode-digits': {
    e164: (checked, next) => next({ ...checked, number: checked.number.replace(/\p{Nd}/gu, asciiDigit) }),
  },
  // The caller-ID override's own copy of the pattern, written with {0,14}: a one-digit "+1" passes.
  'nm-caller-id-one-digit': {
    e164: (checked, next) => (checked.field === 'fromNumber' ? CALLER_ID_E164.test(checked.number) : next(checked)),
  },
  // typeof === 'object': an array (and null) pass.
  'calls-metadata-array-accepted': {
    metadataProblem: (metadata) => (typeof metadata === 'object' ? undefined : 'metadata must be a JSON object'),
  },
  'calls-metadata-rejected': { metadataProblem: (metadata, next) => next(metadata) ?? 'metadata is not allowed' },
  // The dialer job is queued with the trimmed toNumber as soon as that is a number, before the raw
  // value's strict check: " +1…" and "+1…\n" are refused 400 invalid_input, and dialled.
  'nm-refused-call-dialled': {
    refused: ({ store, account, check, body }) => {
      const to = body.toNumber;
      const agent = store.state.agents.get(String(body.aiAgentId));
      if (check !== 'fields' || typeof to !== 'string' || E164_PATTERN.test(to) || !E164_PATTERN.test(to.trim()))
        return;
      if (agent?.account === account && agent.sipUsername !== undefined) store.originate(account, agent, to.trim());
    },
  },
  // The call row keeps the request's metadata, and the CDR is read from the call row.
  'nm-metadata-in-cdr': {
    originate: (origination, next) => {
      const call = next(origination);
      if (origination.body.metadata !== undefined) {
        if (metadataOf.size >= METADATA_KEPT) metadataOf.clear();
        metadataOf.set(call.callId, origination.body.metadata);
      }
      return call;
    },
  },
  'calls-dialer-not-checked': { lacksDialer: () => false },
  'calls-foreign-agent-accepted': { ownAgent: () => true },
  'calls-unprovisioned-wrong-code': {
    unprovisionedAgent: () => ({
      status: 409,
      error: 'account_not_provisioned',
      message: 'no trunk is allocated to the account yet',
    }),
  },
});

const cdrs = faultsAt(events, {
  'nm-metadata-in-cdr': {
    cdrRow: ({ row, callId }, next) => {
      const metadata = metadataOf.get(callId);
      return metadata === undefined ? next({ row, callId }) : { ...next({ row, callId }), metadata };
    },
  },
});

export default [...route, ...cdrs];
