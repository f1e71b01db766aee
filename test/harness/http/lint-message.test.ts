/**
 * The lint's reading of an exchange: which party answered, and what the contract documents for the
 * path. Derived from the document: a path or method added to a copy of openapi.json gets its Allow
 * rule with no new code.
 */
import { describe, expect, it } from 'vitest';
import { openapi } from '../../../contract/openapi.ts';
import { lintMessage } from '../../../contract/standards/lint.ts';
import { bodyFacts } from '../../../contract/standards/message.ts';
import { documentedMethodsOf, fieldLinesOf, lintedExchange } from '../../../harness/http/lint-message.ts';

const BASE = 'http://127.0.0.1:9/v1';
const empty = bodyFacts(Buffer.alloc(0));
const exchange = (url: string, method: string, status: number, fields: Array<[string, string]>) =>
  lintedExchange(
    BASE,
    { url: new URL(url), method, headers: { Authorization: 'Basic x' } },
    { status, fields, body: empty },
  );

describe('an exchange as the lint reads it', () => {
  it('tells the API (below the base URL) from the token endpoint of the auth host', () => {
    expect(exchange(`${BASE}/me`, 'GET', 200, []).channel).toBe('api');
    expect(exchange('http://127.0.0.1:9/oauth/token', 'POST', 200, []).channel).toBe('token');
    expect(exchange('http://127.0.0.1:9/.well-known/oauth-authorization-server', 'GET', 200, []).channel).toBe('api');
    expect(exchange(`${BASE}/me`, 'GET', 200, []).requestHeaders).toEqual({ authorization: 'Basic x' });
  });

  it('keeps a repeated field as two lines', () => {
    expect(fieldLinesOf({ 'Content-Type': ['a/b', 'c/d'], date: 'x', gone: undefined })).toEqual([
      ['content-type', 'a/b'],
      ['content-type', 'c/d'],
      ['date', 'x'],
    ]);
  });

  it("names the contract's methods of a path, templated ones included", () => {
    expect(documentedMethodsOf('/me')).toEqual(['GET']);
    expect(documentedMethodsOf('/hooks/4a9c8f0e-0000-4000-8000-000000000000')).toEqual(['DELETE']);
    expect(documentedMethodsOf('/nowhere')).toBeUndefined();
  });

  it('gives a path added to a copy of openapi.json its Allow rule with no new code', () => {
    const copy = structuredClone(openapi.paths) as Record<string, Record<string, unknown>>;
    copy['/widgets/{id}'] = { get: {}, patch: {} };
    expect(documentedMethodsOf('/widgets/7', copy)).toEqual(['GET', 'PATCH']);
    const message = {
      ...exchange(`${BASE}/widgets/7`, 'PUT', 405, [['allow', 'GET']]),
      documentedMethods: documentedMethodsOf('/widgets/7', copy),
    };
    const allow = lintMessage(message).findings.filter((f) => f.rule === 'LINT-9110-405-ALLOW');
    expect(allow.map((f) => f.problem)).toEqual([
      'Allow: GET leaves out PATCH, which the contract documents for /v1/widgets/7',
    ]);
  });
});
