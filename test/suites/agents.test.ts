import { describe, expect, it } from 'vitest';
import { credentialPaths } from '../../suites/rules/agents.ts';

describe('agents.suite.ts: credentialPaths (AGENTS-NO-CREDENTIALS)', () => {
  it('finds nothing in agent records that carry no credential', () => {
    const list = {
      count: 1,
      agents: [{ id: '7', sipUsername: 'u7', label: 'Sales', createdAt: '2026-01-01T00:00:00Z' }],
    };
    expect(credentialPaths(list)).toEqual([]);
    expect(credentialPaths(null)).toEqual([]);
    expect(credentialPaths('password')).toEqual([]);
  });

  it('names every credential-like key, at any depth and in arrays, whatever its case', () => {
    const list = {
      agents: [
        { id: '1', sipPassword: 'x' },
        { id: '2', line: { auth: { ApiKey: 'k', api_key: 'k2', Token: 't' } } },
        { id: '3', credentials: [{ secret: 's' }] },
      ],
    };
    expect(credentialPaths(list)).toEqual([
      '.agents[0].sipPassword',
      '.agents[1].line.auth.ApiKey',
      '.agents[1].line.auth.api_key',
      '.agents[1].line.auth.Token',
      '.agents[2].credentials',
      '.agents[2].credentials[0].secret',
    ]);
  });

  it('takes pin only as the whole key, not inside another word', () => {
    expect(credentialPaths({ pin: '1234', PIN: '1', spinner: true, pinned: false })).toEqual(['.pin', '.PIN']);
  });
});
