import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { controlOpenapi } from '../../contract/control.ts';
import { eventTypes, limits, openapi, operations, scopes } from '../../contract/openapi.ts';

describe('openapi.json', () => {
  // The test-control protocol's own document is held to the same validator.
  it.each([
    ['openapi.json', openapi],
    ['control-openapi.json', controlOpenapi],
  ])('%s is a valid OpenAPI 3.1 document', async (_name, document) => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(document) as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('compiles every component schema and every webhook payload schema with ajv 2020', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(openapi as object, 'openapi.json');
    const names = Object.keys(openapi.components.schemas);
    expect(names.length).toBeGreaterThanOrEqual(12);
    for (const name of names)
      expect(() => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` }), name).not.toThrow();
    for (const event of eventTypes) {
      expect(() =>
        ajv.compile({ $ref: `openapi.json#/webhooks/${event}/post/requestBody/content/application~1json/schema` }),
      ).not.toThrow();
    }
  });

  it('has the base URL as a server variable ending in /v1', () => {
    expect(openapi.servers[0]?.url).toMatch(/\/v1$/);
    expect(Object.keys(openapi.servers[0]?.variables ?? {})).not.toHaveLength(0);
  });

  it('names the scope of every operation, and none for GET /me', () => {
    expect(Object.fromEntries(operations.map((op) => [op.key, op.scope]))).toEqual({
      'GET /me': undefined,
      'GET /balance': 'read:balance',
      'GET /cdrs': 'read:cdrs',
      'GET /agents': 'read:agents',
      'POST /calls': 'write:calls',
      'POST /hooks': 'write:hooks',
      'DELETE /hooks/{id}': 'write:hooks',
    });
    expect(scopes).toEqual([
      'read:balance',
      'read:cdrs',
      'read:agents',
      'read:numbers',
      'read:invoices',
      'write:calls',
      'write:hooks',
    ]);
  });

  it('documents 401 and the assumed 429 on every operation, and only the 429 as unspecified', () => {
    for (const op of operations) {
      expect(op.statuses, op.key).toContain('401');
      expect(op.statuses, op.key).toContain('429');
    }
    expect(openapi.components.responses.RateLimited['x-unspecified']).toBe(true);
    expect(openapi.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
  });

  it('carries the Limits table once, in x-limits', () => {
    expect(limits).toEqual({
      requestsPerMinute: 100,
      cdrWindowMaxDays: 31,
      cdrDefaultWindowHours: 24,
      cdrLimitDefault: 100,
      cdrLimitMin: 1,
      cdrLimitMax: 1000,
      targetUrlMaxLength: 512,
      webhookRetryHorizonHours: 24,
      webhookAutoDisableAfterConsecutiveFailures: 10,
    });
    const limit = openapi.paths['/cdrs'].get.parameters.find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({
      minimum: limits.cdrLimitMin,
      maximum: limits.cdrLimitMax,
      default: limits.cdrLimitDefault,
    });
    expect(openapi.components.schemas.HookCreate.properties.target_url.maxLength).toBe(limits.targetUrlMaxLength);
  });

  it('lists the five events under webhooks with the signature header', () => {
    expect(Object.keys(openapi.webhooks)).toEqual([...eventTypes]);
    expect(openapi.components.parameters.ServiceSignature.name).toBe('X-Service-Signature');
  });

  it('matches the generated TypeScript types (run npm run generate:types after editing openapi.json)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'occ-types-')), 'types.ts');
    execFileSync(join('node_modules', '.bin', 'openapi-typescript'), ['openapi.json', '-o', out], { stdio: 'pipe' });
    expect(readFileSync(out, 'utf8')).toBe(readFileSync('contract/openapi-types.ts', 'utf8'));
  });
});
