import { describe, expect, it } from 'vitest';
import {
  agentNeedles,
  cdrNeedles,
  describeLeaks,
  foreignAgentNeedles,
  leafPaths,
  leakedNeedles,
  needlePlaces,
} from '../../suites/rules/isolation.ts';

const ours = {
  count: 2,
  agents: [
    { id: '1001', sipUsername: 'main_1001', label: 'Sales', createdAt: '2026-01-01T00:00:00Z' },
    { id: '2026', sipUsername: 'main_2026', label: 'Support 4242', createdAt: '2026-02-01T00:00:00Z' },
  ],
};

describe('isolation.suite.ts: leafPaths', () => {
  it('gives every string and number leaf its path', () => {
    expect(leafPaths({ count: 1, agents: [{ id: '7', tags: ['a'] }], x: null, y: true })).toEqual([
      { path: 'count', value: '1' },
      { path: 'agents[0].id', value: '7' },
      { path: 'agents[0].tags[0]', value: 'a' },
    ]);
  });
});

describe('isolation.suite.ts: leakedNeedles', () => {
  it('finds a value of another account where a value of its kind sits, naming the path', () => {
    const needles = [{ value: '2026', what: 'agent id of B', at: needlePlaces.agentId }];
    expect(leakedNeedles(ours, needles)).toEqual([{ needle: needles[0], path: 'agents[1].id' }]);
  });

  it('never where another kind of value sits: a count, a year, a label, a record id', () => {
    const needles = [
      { value: '2', what: 'agent id of B', at: needlePlaces.agentId },
      { value: '4242', what: 'agent id of B', at: needlePlaces.agentId },
      { value: '1001', what: 'record id of B', at: needlePlaces.cdrId },
    ];
    expect(leakedNeedles(ours, needles)).toEqual([]);
    // Whole values only: 2026 is not found in a timestamp, 100 not in 1001.
    expect(leakedNeedles(ours, [{ value: '100', what: 'agent id', at: needlePlaces.agentId }])).toEqual([]);
  });

  it('SIP usernames count in agent records and in call records', () => {
    const cdrs = { count: 1, calls: [{ id: '9', sipUsername: 'other_77', startTime: '2026-01-01T00:00:00Z' }] };
    const needle = { value: 'other_77', what: 'SIP username of B', at: needlePlaces.sipUsername };
    expect(leakedNeedles(cdrs, [needle])).toEqual([{ needle, path: 'calls[0].sipUsername' }]);
    expect(leakedNeedles({ agents: [{ sipUsername: 'other_77' }] }, [needle])).toHaveLength(1);
  });

  it('no needles, or a body that is not a list: nothing found', () => {
    expect(leakedNeedles(ours, [])).toEqual([]);
    expect(leakedNeedles(undefined, [{ value: 'x', what: 'x', at: /.*/ }])).toEqual([]);
  });

  it('describeLeaks names each value, its owner and its place, at most five', () => {
    const needle = { value: '5', what: 'agent id of B', at: needlePlaces.agentId };
    const leaks = Array.from({ length: 7 }, (_, i) => ({ needle, path: `agents[${i}].id` }));
    const text = describeLeaks('GET /agents', leaks);
    expect(text).toContain('GET /agents carries what belongs to another account: agent id of B 5 at agents[0].id');
    expect(text).toContain('and 2 more');
  });
});

describe('isolation.suite.ts: needles from another account', () => {
  it('from its GET /agents: ids and SIP usernames (a line without one gives only its id)', () => {
    const needles = agentNeedles({ agents: [{ id: '3', sipUsername: 'b_3' }, { id: '4' }] }, 'B');
    expect(needles.map((n) => [n.value, n.what])).toEqual([
      ['3', 'agent id of B'],
      ['b_3', 'SIP username of B'],
      ['4', 'agent id of B'],
    ]);
    expect(agentNeedles({ error: 'unauthorized' }, 'B')).toEqual([]);
  });

  it('from its GET /cdrs: record ids and each SIP username once', () => {
    const needles = cdrNeedles(
      {
        calls: [
          { id: '10', sipUsername: 'b_3' },
          { id: '11', sipUsername: 'b_3' },
        ],
      },
      'B',
    );
    expect(needles.map((n) => n.value)).toEqual(['10', '11', 'b_3']);
    expect(cdrNeedles({ calls: null }, 'B')).toEqual([]);
  });

  it('from the configuration: the agents of other accounts that are set', () => {
    expect(foreignAgentNeedles({ foreign: '77', noDialer: undefined }).map((n) => [n.value, n.what])).toEqual([
      ['77', 'agent of another account (FOREIGN_AGENT_ID)'],
    ]);
    expect(foreignAgentNeedles({})).toEqual([]);
  });
});
