/**
 * openapi.json, loaded once, and the values other modules read from it, so that a limit, an
 * enumeration or a scope is written down in exactly one place: the document.
 */
import document from '../openapi.json' with { type: 'json' };
import type { components, paths } from './openapi-types.ts';

export type Schemas = components['schemas'];
export type Me = Schemas['Me'];
export type Balance = Schemas['Balance'];
export type Cdr = Schemas['Cdr'];
export type CdrList = Schemas['CdrList'];
export type Agent = Schemas['Agent'];
export type AgentList = Schemas['AgentList'];
export type CallCreate = Schemas['CallCreate'];
export type CallQueued = Schemas['CallQueued'];
export type HookCreate = Schemas['HookCreate'];
export type HookCreated = Schemas['HookCreated'];
export type ApiError = Schemas['Error'];
export type EventType = Schemas['EventType'];
export type EventBase = Schemas['EventBase'];
export type ApiPath = keyof paths;

export const openapi = document;

/** The spec's Limits table (openapi.json `x-limits`). */
export const limits = {
  requestsPerMinute: document['x-limits'].requestsPerMinute,
  cdrWindowMaxDays: document['x-limits'].cdrWindowMaxDays,
  cdrDefaultWindowHours: document['x-limits'].cdrDefaultWindowHours,
  cdrLimitDefault: document['x-limits'].cdrLimitDefault,
  cdrLimitMin: document['x-limits'].cdrLimitMin,
  cdrLimitMax: document['x-limits'].cdrLimitMax,
  targetUrlMaxLength: document['x-limits'].targetUrlMaxLength,
  webhookRetryHorizonHours: document['x-limits'].webhookRetryHorizonHours,
  webhookAutoDisableAfterConsecutiveFailures: document['x-limits'].webhookAutoDisableAfterConsecutiveFailures,
} as const;

export const DAY_MS = 24 * 60 * 60 * 1000;
export const CDR_WINDOW_MAX_MS = limits.cdrWindowMaxDays * DAY_MS;

export const eventTypes = document.components.schemas.EventType.enum as readonly EventType[];

/** Every scope of the OAuth client_credentials flow, in document order. */
export const scopes = Object.keys(
  document.components.securitySchemes.oauth2.flows.clientCredentials.scopes,
) as readonly string[];

export type OperationKey = `${'GET' | 'POST' | 'DELETE'} ${ApiPath}`;

export interface OperationInfo {
  readonly key: OperationKey;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: ApiPath;
  readonly operationId: string;
  /** The scope the operation needs; undefined for GET /me, which takes any valid token. */
  readonly scope: string | undefined;
  readonly statuses: readonly string[];
}

/** Every operation of the document with the scope its oauth2 security requirement names. */
export const operations: readonly OperationInfo[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(
    item as unknown as Record<
      string,
      { operationId: string; security: Array<Record<string, string[] | undefined>>; responses: Record<string, unknown> }
    >,
  ).map(([method, op]) => {
    const upper = method.toUpperCase() as OperationInfo['method'];
    const oauth = op.security.find((requirement) => 'oauth2' in requirement)?.oauth2 ?? [];
    return {
      key: `${upper} ${path}` as OperationKey,
      method: upper,
      path: path as ApiPath,
      operationId: op.operationId,
      scope: oauth[0],
      statuses: Object.keys(op.responses),
    };
  }),
);

/** E.164 as the document writes it (components.schemas.E164). */
export const E164_PATTERN = new RegExp(document.components.schemas.E164.pattern);
export const NUMERIC_ID_PATTERN = new RegExp(document.components.schemas.CallCreate.properties.aiAgentId.pattern);
export const CREDENTIAL_FIELD_PATTERN = new RegExp(document.components.schemas.CredentialFieldName.pattern);
