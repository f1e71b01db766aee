/**
 * The reference server's seeded state: accounts, agents, CDRs, API tokens and the OAuth client,
 * all derived deterministically from a numeric seed (mulberry32) and anchored at the virtual
 * clock's "now" at creation: the same seed gives the same ids, tokens and record offsets.
 *
 * Accounts (by name, also the names of the control API):
 *   main       provisioned (trunk), dialer add-on, five agents (one without SIP extension), ~3,000 CDRs over 60 days
 *   other      provisioned, dialer; owns the "foreign" agent; a second account for foreign checks
 *   suspended  suspended (GET /me → 403 suspended)
 *   noTrunk    no trunk allocated (GET /cdrs and POST /calls → 409 account_not_provisioned)
 *   noDialer   trunk but no dialer add-on (POST /calls → 409 dialer_required)
 *
 * API tokens: OUR CHOICE of live-token prefix is `oc_live_` (the spec says only "a live-token
 * prefix followed by opaque characters"), followed by 32 base62 characters from the PRNG.
 */
import { DAY_MS, scopes } from '../contract/openapi.ts';

export const API_TOKEN_PREFIX = 'oc_live_';
/** Prefix of OAuth client_credentials access tokens (our choice; opaque, crypto-random). */
export const OAUTH_TOKEN_PREFIX = 'oc_at_';

export type AccountName = 'main' | 'other' | 'suspended' | 'noTrunk' | 'noDialer';
export const accountNames: readonly AccountName[] = ['main', 'other', 'suspended', 'noTrunk', 'noDialer'];

export interface Account {
  name: AccountName;
  customerId: string;
  companyName: string;
  primaryContactEmail: string;
  suspended: boolean;
  trunk: boolean;
  dialer: boolean;
  balance: number;
  currency: string;
  accountType: string;
  creditLimit: number | null;
  blocked: boolean;
  /** Caller ID used as CDR src for originated calls. */
  cli: string;
}

export interface AgentRecord {
  id: string;
  account: AccountName;
  label: string;
  /** undefined: no SIP extension yet (POST /calls → 409 ai_agent_not_provisioned). */
  sipUsername: string | undefined;
  /** Internal only: never leaves the server (agents-credentials-leaked aside). */
  sipPassword: string;
  createdAt: string;
}

/** A CDR as served, plus its start instant in ms for window searches. */
export interface CdrRecord {
  startMs: number;
  row: {
    id: string;
    startTime: string;
    duration: number;
    billsec: number;
    src: string;
    dst: string;
    disposition: string;
    sipUsername: string;
    sellPriceCents: number;
    currency: string;
    country: string;
    did: string | null;
  };
}

export interface TokenRecord {
  token: string;
  account: AccountName;
  scopes: ReadonlySet<string>;
  kind: 'api' | 'oauth';
  /** Fixture name or a free label. */
  label: string;
  /** Virtual ms; undefined = no expiry (API tokens). */
  expiresAt: number | undefined;
  revoked: boolean;
  /** Virtual ms of the last authenticated use. */
  lastUsedAt: number | undefined;
}

/** The scopes the reference's OAuth client is registered for. */
export const OAUTH_CLIENT_SCOPES: readonly string[] = ['read:balance', 'read:cdrs'];

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  account: AccountName;
  scopes: readonly string[];
}

export type FixtureTokenName =
  | 'all'
  | 'none'
  | 'read:balance'
  | 'read:cdrs'
  | 'read:agents'
  | 'read:numbers'
  | 'read:invoices'
  | 'write:calls'
  | 'write:hooks'
  | 'revoked'
  | 'expired'
  | 'suspended'
  | 'noTrunk'
  | 'noDialer';

export interface SeededState {
  accounts: Map<AccountName, Account>;
  agents: Map<string, AgentRecord>;
  /** Per account, sorted by startMs ascending. */
  cdrs: Map<AccountName, CdrRecord[]>;
  tokens: Map<string, TokenRecord>;
  fixtureTokens: Record<FixtureTokenName, string>;
  oauthClient: OAuthClient;
  agentFixtures: { provisioned: string; unprovisioned: string; foreign: string; noTrunk: string; noDialer: string };
  nextCdrId: number;
}

/** mulberry32: a tiny, fast, good-enough 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function randomString(rand: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[Math.floor(rand() * 62)];
  return out;
}

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function digits(rand: () => number, n: number): string {
  let out = String(1 + Math.floor(rand() * 9));
  for (let i = 1; i < n; i++) out += String(Math.floor(rand() * 10));
  return out;
}

/** Destinations: E.164 country code, national number length, country name, price per minute in cents. */
const destinations = [
  { cc: '1', len: 10, country: 'United States', cents: 1 },
  { cc: '1', len: 10, country: 'Canada', cents: 1 },
  { cc: '44', len: 10, country: 'United Kingdom', cents: 2 },
  { cc: '49', len: 10, country: 'Germany', cents: 2 },
  { cc: '33', len: 9, country: 'France', cents: 2 },
  { cc: '61', len: 9, country: 'Australia', cents: 3 },
  { cc: '34', len: 9, country: 'Spain', cents: 2 },
  { cc: '31', len: 9, country: 'Netherlands', cents: 2 },
] as const;

/** Country name for an E.164 number (longest known code first); "Unknown" otherwise. */
export function countryOf(e164: string): string {
  for (const d of [...destinations].sort((a, b) => b.cc.length - a.cc.length)) {
    if (e164.startsWith(`+${d.cc}`)) return d.country;
  }
  return 'Unknown';
}

const dispositions = [
  'ANSWERED',
  'ANSWERED',
  'ANSWERED',
  'ANSWERED',
  'NO ANSWER',
  'NO ANSWER',
  'BUSY',
  'FAILED',
] as const;

export const SEED_CDR_COUNT = 3000;
export const SEED_CDR_SPAN_DAYS = 60;

/** The five accounts, in the PRNG's order. */
function seedAccounts(rand: () => number): Map<AccountName, Account> {
  const account = (
    name: AccountName,
    companyName: string,
    flags: Pick<Account, 'suspended' | 'trunk' | 'dialer'>,
    balance: number,
    creditLimit: number | null,
  ): Account => ({
    name,
    customerId: `cus_${randomString(rand, 12)}`,
    companyName,
    primaryContactEmail: `ops+${name.toLowerCase()}@${companyName.toLowerCase().replace(/[^a-z]+/g, '-')}.example.com`,
    ...flags,
    balance,
    currency: 'USD',
    accountType: 'prepaid',
    creditLimit,
    blocked: false,
    cli: `+1${digits(rand, 10)}`,
  });
  return new Map<AccountName, Account>([
    ['main', account('main', 'Acme Outreach', { suspended: false, trunk: true, dialer: true }, 1250.75, null)],
    ['other', account('other', 'Globex Calling', { suspended: false, trunk: true, dialer: true }, 310.2, 500)],
    ['suspended', account('suspended', 'Initech Sales', { suspended: true, trunk: true, dialer: true }, 0, null)],
    ['noTrunk', account('noTrunk', 'Umbrella Leads', { suspended: false, trunk: false, dialer: true }, 50, null)],
    ['noDialer', account('noDialer', 'Hooli Voice', { suspended: false, trunk: true, dialer: false }, 75.5, null)],
  ]);
}

/** The agents: numeric ids, unique across accounts; main's four provisioned ones, and one of each fixture. */
function seedAgents(rand: () => number, nowMs: number) {
  const agents = new Map<string, AgentRecord>();
  let agentId = 1000 + Math.floor(rand() * 9000);
  const addAgent = (acct: AccountName, label: string, provisioned: boolean): AgentRecord => {
    agentId += 1 + Math.floor(rand() * 7);
    const id = String(agentId);
    const record: AgentRecord = {
      id,
      account: acct,
      label,
      sipUsername: provisioned ? `${acct.toLowerCase()}_${id}` : undefined,
      sipPassword: randomString(rand, 20),
      createdAt: new Date(nowMs - Math.floor(rand() * 300 + 61) * DAY_MS).toISOString(),
    };
    agents.set(id, record);
    return record;
  };
  const main = [
    addAgent('main', 'Sales AI - East', true),
    addAgent('main', 'Sales AI - West', true),
    addAgent('main', 'Support AI', true),
    addAgent('main', 'Renewals AI', true),
  ];
  const unprovisioned = addAgent('main', 'New agent (pending extension)', false);
  const foreign = addAgent('other', 'Globex AI', true);
  addAgent('suspended', 'Initech AI', true);
  const noTrunk = addAgent('noTrunk', 'Umbrella AI', true);
  const noDialer = addAgent('noDialer', 'Hooli AI', true);
  return { agents, main, unprovisioned, foreign, noTrunk, noDialer };
}

/** main's CDRs: SEED_CDR_COUNT over the last SEED_CDR_SPAN_DAYS, sorted by start; and the next CDR id. */
function seedCdrs(
  rand: () => number,
  nowMs: number,
  src: string,
  agents: readonly AgentRecord[],
): { cdrs: CdrRecord[]; nextCdrId: number } {
  const starts: number[] = [];
  for (let i = 0; i < SEED_CDR_COUNT; i++)
    starts.push(nowMs - 1000 - Math.floor(rand() * (SEED_CDR_SPAN_DAYS * DAY_MS - 1000)));
  starts.sort((a, b) => a - b);
  let cdrId = 7_000_000 + Math.floor(rand() * 1_000_000);
  const cdrs: CdrRecord[] = starts.map((startMs) => {
    const dest = pick(rand, destinations);
    const disposition = pick(rand, dispositions);
    const answered = disposition === 'ANSWERED';
    const ring = 3 + Math.floor(rand() * 25);
    const billsec = answered ? 5 + Math.floor(rand() * 600) : 0;
    const agent = pick(rand, agents);
    cdrId += 1;
    return {
      startMs,
      row: {
        id: String(cdrId),
        startTime: new Date(startMs).toISOString(),
        duration: ring + billsec,
        billsec,
        src,
        dst: `+${dest.cc}${digits(rand, dest.len)}`,
        disposition,
        sipUsername: agent.sipUsername ?? '',
        sellPriceCents: answered ? Math.max(1, Math.ceil((billsec / 60) * dest.cents)) : 0,
        currency: 'USD',
        country: dest.country,
        did: rand() < 0.3 ? null : `+1${digits(rand, 10)}`,
      },
    };
  });
  return { cdrs, nextCdrId: cdrId + 1 };
}

/** The API tokens: the fixtures, and one of the other account. */
function seedTokens(
  rand: () => number,
  nowMs: number,
): { tokens: Map<string, TokenRecord>; fixtureTokens: Record<FixtureTokenName, string> } {
  const tokens = new Map<string, TokenRecord>();
  const mint = (
    acct: AccountName,
    tokenScopes: readonly string[],
    label: string,
    extra: Partial<TokenRecord> = {},
  ): string => {
    const token = `${API_TOKEN_PREFIX}${randomString(rand, 32)}`;
    tokens.set(token, {
      token,
      account: acct,
      scopes: new Set(tokenScopes),
      kind: 'api',
      label,
      expiresAt: undefined,
      revoked: false,
      lastUsedAt: undefined,
      ...extra,
    });
    return token;
  };
  const fixtureTokens = {
    all: mint('main', scopes, 'all'),
    none: mint('main', [], 'none'),
    ...(Object.fromEntries(scopes.map((s) => [s, mint('main', [s], s)])) as Record<string, string>),
    revoked: mint('main', scopes, 'revoked', { revoked: true }),
    expired: mint('main', scopes, 'expired', { expiresAt: nowMs - 3_600_000 }),
    suspended: mint('suspended', scopes, 'suspended'),
    noTrunk: mint('noTrunk', scopes, 'noTrunk'),
    noDialer: mint('noDialer', scopes, 'noDialer'),
  } as Record<FixtureTokenName, string>;
  mint('other', scopes, 'other');
  return { tokens, fixtureTokens };
}

export function createSeededState(seed: number, nowMs: number): SeededState {
  const rand = mulberry32(seed);
  const accounts = seedAccounts(rand);
  const agents = seedAgents(rand, nowMs);
  const main = seedCdrs(rand, nowMs, accounts.get('main')!.cli, agents.main);
  const { tokens, fixtureTokens } = seedTokens(rand, nowMs);
  const oauthClient: OAuthClient = {
    clientId: `client_${randomString(rand, 16)}`,
    clientSecret: `cs_${randomString(rand, 40)}`,
    account: 'main',
    // A reporting client, registered for fewer scopes than the spec has: a grant can ask for more.
    scopes: OAUTH_CLIENT_SCOPES,
  };
  return {
    accounts,
    agents: agents.agents,
    cdrs: new Map<AccountName, CdrRecord[]>(accountNames.map((n) => [n, n === 'main' ? main.cdrs : []])),
    tokens,
    fixtureTokens,
    oauthClient,
    agentFixtures: {
      provisioned: agents.main[0]!.id,
      unprovisioned: agents.unprovisioned.id,
      foreign: agents.foreign.id,
      noTrunk: agents.noTrunk.id,
      noDialer: agents.noDialer.id,
    },
    nextCdrId: main.nextCdrId,
  };
}

/** A token of the `other` account (for foreign-hook checks from the test side). */
export function otherAccountToken(state: SeededState): string {
  for (const t of state.tokens.values()) if (t.account === 'other' && t.label === 'other') return t.token;
  throw new Error('seeded state has no token of the other account');
}
