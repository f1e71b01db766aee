import { describe, expect, it } from 'vitest';
import { compareDocuments, resolveRef } from '../../contract/compatibility.ts';
import { openapi } from '../../contract/openapi.ts';

type Json = Record<string, unknown>;
const copy = (): Json => structuredClone(openapi) as Json;

/** The value at `path` under `node`: the tests edit their copy of the document in place. */
const member = (node: Json, path: string[]): unknown => path.reduce<unknown>((here, key) => (here as Json)[key], node);
/** The object at `path` under `node`. */
const at = (node: Json, ...path: string[]): Json => member(node, path) as Json;
/** The array at `path` under `node`. */
const list = (node: Json, ...path: string[]): unknown[] => member(node, path) as unknown[];

describe('compareDocuments', () => {
  it('finds nothing between the bundled document and itself', () => {
    expect(compareDocuments(openapi, copy())).toEqual({ breaking: [], additions: [] });
  });

  it('ignores a servers change (the live base URL)', () => {
    const served = copy();
    served.servers = [{ url: 'http://127.0.0.1:1234/v1' }];
    expect(compareDocuments(openapi, served).breaking).toEqual([]);
  });

  it('reports a removed operation as breaking', () => {
    const served = copy();
    delete at(served, 'paths', '/hooks/{id}').delete;
    expect(compareDocuments(openapi, served).breaking).toContain('DELETE /hooks/{id}: operation removed');
  });

  it('reports a removed response status as breaking', () => {
    const served = copy();
    delete at(served, 'paths', '/cdrs', 'get', 'responses')['409'];
    expect(compareDocuments(openapi, served).breaking).toContain('GET /cdrs: response 409 removed');
  });

  it('reports a removed schema property as breaking', () => {
    const served = copy();
    delete at(served, 'components', 'schemas', 'Balance', 'properties').stale;
    expect(compareDocuments(openapi, served).breaking.some((b) => b.includes('property "stale" removed'))).toBe(true);
  });

  it('reports a removed enum value as breaking and an added one as an addition', () => {
    const served = copy();
    at(served, 'components', 'schemas', 'EventType').enum = [
      'call.ended',
      'call.transferred',
      'disposition.set',
      'dnc.added',
      'lead.updated',
    ];
    const result = compareDocuments(openapi, served);
    expect(result.breaking.some((b) => b.includes('enum value "lead.completed" removed'))).toBe(true);
    expect(result.additions.some((a) => a.includes('enum value "lead.updated" added'))).toBe(true);
  });

  it('reports a newly required request property and a new required parameter as breaking', () => {
    const served = copy();
    at(served, 'components', 'schemas', 'CallCreate').required = [
      ...list(served, 'components', 'schemas', 'CallCreate', 'required'),
      'fromNumber',
    ];
    list(served, 'paths', '/cdrs', 'get', 'parameters').push({
      name: 'account',
      in: 'query',
      required: true,
      schema: { type: 'string' },
    });
    const result = compareDocuments(openapi, served);
    expect(result.breaking.some((b) => b.includes('"fromNumber" newly required'))).toBe(true);
    expect(result.breaking).toContain('GET /cdrs: new required parameter query account');
  });

  it('reports a parameter made required as breaking', () => {
    const served = copy();
    at(served, 'paths', '/cdrs', 'get', 'parameters', '0').required = true;
    expect(compareDocuments(openapi, served).breaking).toContain('GET /cdrs: parameter query from newly required');
  });

  it('records additions: an operation, a status, an optional parameter, a response property', () => {
    const served = copy();
    at(served, 'paths')['/numbers'] = {
      get: { operationId: 'listNumbers', responses: { '200': { description: 'ok' } } },
    };
    at(served, 'paths', '/me', 'get', 'responses')['404'] = { description: 'new' };
    list(served, 'paths', '/cdrs', 'get', 'parameters').push({
      name: 'cursor',
      in: 'query',
      schema: { type: 'string' },
    });
    at(served, 'components', 'schemas', 'Me', 'properties').timezone = { type: 'string' };
    const result = compareDocuments(openapi, served);
    expect(result.breaking).toEqual([]);
    expect(result.additions).toEqual(
      expect.arrayContaining([
        'GET /numbers: operation added',
        'GET /me: response 404 added',
        'GET /cdrs: optional parameter query cursor added',
      ]),
    );
    expect(result.additions.some((a) => a.includes('property "timezone" added'))).toBe(true);
  });

  it('reports a changed type as breaking', () => {
    const served = copy();
    at(served, 'components', 'schemas', 'Balance', 'properties').balance = { type: 'string' };
    expect(
      compareDocuments(openapi, served).breaking.some((b) => b.includes('.balance: type number became string')),
    ).toBe(true);
  });

  it('reports a removed webhook payload field as breaking', () => {
    const served = copy();
    const own = at(served, 'components', 'schemas', 'CallEndedEvent', 'allOf', '1');
    delete at(own, 'properties').durationSec;
    own.required = list(own, 'required').filter((r) => r !== 'durationSec');
    const breaking = compareDocuments(openapi, served).breaking;
    expect(breaking.some((b) => b.includes('"durationSec" removed'))).toBe(true);
  });
});

describe('resolveRef', () => {
  it('follows local references and leaves other values alone', () => {
    expect(resolveRef({ a: { b: 1 } }, { $ref: '#/a/b' })).toBe(1);
    expect(resolveRef({}, { type: 'string' })).toEqual({ type: 'string' });
    expect(resolveRef({}, { $ref: 'https://elsewhere/x' })).toEqual({ $ref: 'https://elsewhere/x' });
  });
});
