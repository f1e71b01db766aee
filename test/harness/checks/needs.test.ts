import { describe, expect, it } from 'vitest';
import { controlGaps } from '../../../harness/report/control-gaps.ts';
import type { RequirementVerdict } from '../../../harness/report/model.ts';
import type { CheckResult } from '../../../harness/report/results.ts';
import { notVerifiableReason, unverifiable } from '../../../harness/checks/needs.ts';
import type { RunTarget } from '../../../harness/run/context.ts';
import { budgetOf } from '../../../harness/scheduling/budget.ts';

const remote = (control: RunTarget['control']): RunTarget => ({
  kind: 'remote',
  baseUrl: 'https://api.example.com/v1',
  authUrl: undefined,
  control,
  receiverLocalUrl: undefined,
  receiverPublicUrl: undefined,
  receiverCaPem: undefined,
  receiverRemote: false,
  receiverToken: undefined,
  tokens: { all: 'tok' },
  oauth: undefined,
  agents: {},
  destinationNumber: undefined,
  allowOriginate: false,
  requestsPerMinute: 80,
  requestTimeoutMs: 1000,
  propertyNumRuns: 1,
  webhookBudgetS: 180,
  budget: budgetOf(80, 60_000, 113),
  secrets: [],
  dryRun: false,
});

describe('OAuth needs', () => {
  it("names OAUTH_CLIENT_SCOPES when the client's registered scopes are unknown, beside the client itself", () => {
    const scopes = { oauth: true, oauthScopes: true } as const;
    expect(notVerifiableReason(scopes, remote(undefined))).toBe(
      'not verifiable with this configuration: needs AUTH_URL, OAUTH_CLIENT_ID and OAUTH_CLIENT_SECRET; ' +
        'OAUTH_CLIENT_SCOPES (the scopes the OAuth client is registered for)',
    );
    const client = { ...remote(undefined), authUrl: 'https://auth.example.com' };
    expect(notVerifiableReason(scopes, { ...client, oauth: { clientId: 'c', clientSecret: 's' } })).toBe(
      'not verifiable with this configuration: needs ' +
        'OAUTH_CLIENT_SCOPES (the scopes the OAuth client is registered for)',
    );
    const registered = { clientId: 'c', clientSecret: 's', scopes: ['read:cdrs'] };
    expect(notVerifiableReason(scopes, { ...client, oauth: registered })).toBeUndefined();
  });
});

describe('control needs', () => {
  it('without CONTROL_URL names the variables and capabilities; with one lacking a state, names the state', () => {
    const needs = { control: ['account-without-trunk', 'clock'] } as const;
    const without = notVerifiableReason(needs, remote(undefined))!;
    expect(without).toBe(
      'not verifiable with this configuration: needs CONTROL_URL and CONTROL_TOKEN ' +
        '(a test-control endpoint offering account-without-trunk, clock: see control-openapi.json)',
    );
    expect(unverifiable(needs, remote(undefined))!.missingCapabilities).toEqual(['account-without-trunk', 'clock']);
    const partial = notVerifiableReason(
      needs,
      remote({ url: 'https://c.example.com', token: 'x', offered: ['clock'] }),
    )!;
    expect(partial).toBe("not verifiable: the target's control endpoint does not offer account-without-trunk");
    expect(
      unverifiable(needs, remote({ url: 'https://c.example.com', token: 'x', offered: ['clock'] }))!
        .missingCapabilities,
    ).toEqual(['account-without-trunk']);
    expect(
      notVerifiableReason(
        needs,
        remote({ url: 'https://c.example.com', token: 'x', offered: ['clock', 'account-without-trunk'] }),
      ),
    ).toBeUndefined();
  });

  it('does not credit CONTROL_URL with a check that also lacks another variable', () => {
    const why = unverifiable({ tokens: ['noTrunk'], control: ['clock'] }, remote(undefined))!;
    expect(why.reason).toMatch(/needs TOKEN_NO_TRUNK; CONTROL_URL/);
    expect(why.missingCapabilities).toEqual([]);
    expect(unverifiable({ control: ['clock'], oauth: true }, remote(undefined))!.missingCapabilities).toEqual([]);
  });

  it('lists each missing capability with the not-verifiable requirements it would unlock', () => {
    const check = (requirements: string[], missing?: string): CheckResult => ({
      id: requirements.join(),
      project: 'conformance',
      file: 'x',
      name: requirements.join(),
      status: missing === undefined ? 'passed' : 'skipped',
      durationMs: 0,
      requirements,
      ...(missing === undefined
        ? {}
        : {
            skipReason: `not verifiable: the target's control endpoint does not offer ${missing}`,
            missingCapabilities: [missing],
          }),
      observations: [],
      exchanges: [],
      requests: 0,
      plannedRequests: 0,
      rateLimited: 0,
    });
    const verdict = (id: string, status: RequirementVerdict['status']) => ({ id, status }) as RequirementVerdict;
    const gaps = controlGaps(
      [
        check(['BALANCE-UPSTREAM-500'], 'balance-upstream-failing'),
        check(['ME-SUSPENDED-403'], 'account-suspended'),
        check(['ME-SUSPENDED-403']),
      ],
      [verdict('BALANCE-UPSTREAM-500', 'not_verifiable'), verdict('ME-SUSPENDED-403', 'passed')],
    );
    expect(gaps).toEqual([
      { capability: 'balance-upstream-failing', unlocks: ['BALANCE-UPSTREAM-500'] },
      { capability: 'account-suspended', unlocks: [] },
    ]);
  });
});
