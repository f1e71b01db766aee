/**
 * What every HTTP/1.1 server does with a request's Host, its version and its "close" option
 * (operators/connection.ts derives the probes from openapi.json; docs/standards.md lists them):
 * each probe is one request on a socket of its own, judged off the bytes that came back. Behavioural
 * checks: embedded, every run; remotely, their turn of the behavioural near misses' budget.
 */
import { describe } from 'vitest';
import { openapi } from '../contract/openapi.ts';
import { wireAnswers } from '../contract/standards/wire-answers.ts';
import { check } from '../harness/checks/check.ts';
import { type ConnectionProbe, connectionProbes } from '../operators/connection.ts';
import type { Document } from '../operators/document.ts';
import type { RequirementId } from '../requirements/catalogue.ts';
import { behaviourTurn, connectionMember } from './rules/near-misses.ts';

/** The requirement each probe's verdict belongs to (requirements/standards-lint.ts): a new probe is a line here. */
const requirementOf: Readonly<Record<string, RequirementId>> = {
  'WIRE-HOST-TWICE': 'STD-HTTP-HOST',
  'WIRE-HOST-INVALID': 'STD-HTTP-HOST',
  'WIRE-HOST-MISSING': 'STD-HTTP-HOST',
  'WIRE-CLOSE': 'STD-HTTP-CLOSE',
  'WIRE-ABSOLUTE-FORM': 'STD-HTTP-REQUEST-TARGET',
  'WIRE-HTTP10': 'STD-HTTP-VERSION',
};
const requirement = (probe: ConnectionProbe): RequirementId => {
  const id = requirementOf[probe.id];
  if (id === undefined) throw new Error(`no requirement for ${probe.id} (suites/connection.suite.ts)`);
  return id;
};

/** How long a connection may stay open after a whole answer to a request with "close" before it is asked again. */
const CLOSE_GRACE_MS = 1_500;

function hostsOf(send: ConnectionProbe['send'], authority: string): readonly string[] | undefined {
  if (send.hosts === 'none') return [];
  if (send.hosts === 'twice') return [authority, authority];
  if (send.hosts === 'invalid') return [`${authority}/`];
  return undefined;
}

describe('Protocol: Host, version and connection, read off the wire', () => {
  for (const probe of connectionProbes(openapi as unknown as Document)) {
    check(
      `protocol (${probe.section}): ${probe.what} on ${probe.operation}`,
      {
        verifies: [requirement(probe)],
        needs: { tokens: ['all'] },
        turn: behaviourTurn(connectionMember(probe)),
        requests: probe.send.askAgain ? 2 : 1,
      },
      async (t) => {
        const url = `${t.target.baseUrl}${probe.operation.split(' ')[1]}`;
        const hosts = hostsOf(probe.send, new URL(url).host);
        const bytes = await t.callRaw({
          method: 'GET',
          url,
          headers: { authorization: `Bearer ${t.token('all')}`, accept: 'application/json' },
          version: probe.send.version,
          ...(hosts === undefined ? {} : { hosts }),
          ...(probe.send.askAgain ? { askAgainAfterMs: CLOSE_GRACE_MS } : {}),
          ...(probe.send.absoluteForm ? { absoluteForm: true } : {}),
        });
        const answers = wireAnswers(bytes, 'GET', true);
        if (answers.finals.length === 0)
          return t.notVerifiable(`no whole answer to ${probe.what} on ${probe.operation} (${bytes.length} bytes)`);
        const problem = probe.judge(answers);
        t.verify(
          requirement(probe),
          problem === undefined,
          `${probe.id} (${probe.section}), ${probe.what}: ${problem}`,
        );
      },
    );
  }
});
