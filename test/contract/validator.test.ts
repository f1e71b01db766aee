import { describe, expect, it } from 'vitest';
import { createContract, matchPathTemplate } from '../../contract/validator.ts';
import { suiteCacheDirectory } from '../../harness/config/settings.ts';

const contract = createContract({ cacheDirectory: suiteCacheDirectory(process.env) });
const json = (status: number, body: unknown, contentType = 'application/json; charset=utf-8') => ({
  status,
  headers: { 'content-type': contentType },
  rawBody: JSON.stringify(body),
  json: body,
});

describe('response validator', () => {
  it('accepts a documented status whose body matches', () => {
    const verdict = contract.checkResponse(
      'GET',
      '/cdrs',
      json(400, { error: 'window_too_wide', message: 'max 31 days' }),
    );
    expect(verdict).toEqual({
      operation: 'GET /cdrs',
      status: 400,
      documented: true,
      unspecified: false,
      problems: [],
    });
  });

  it('fails an undocumented status and lists the documented ones', () => {
    const verdict = contract.checkResponse('GET', '/me', json(201, { customerId: 'c' }));
    expect(verdict.documented).toBe(false);
    expect(verdict.problems).toEqual(['status 201 is not documented for GET /me (documented: 200, 401, 403, 429)']);
  });

  it('fails an error code outside the list of that endpoint and status', () => {
    expect(contract.checkResponse('GET', '/cdrs', json(400, { error: 'invalid_input' })).problems).toEqual([
      'body/error is "invalid_input", not one of "invalid_timestamp", "till_must_be_after_from", "window_too_wide"',
    ]);
    expect(contract.checkResponse('POST', '/calls', json(409, { error: 'not_found' })).problems[0]).toMatch(
      /ai_agent_not_provisioned/,
    );
    expect(contract.checkResponse('DELETE', '/hooks/{id}', json(401, { error: 'forbidden' })).problems[0]).toMatch(
      /not one of "unauthorized"/,
    );
  });

  it('fails a wrong content type and a body that is not JSON', () => {
    const verdict = contract.checkResponse('GET', '/agents', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      rawBody: '<html>',
      json: undefined,
      jsonError: 'body is not JSON (content type text/html): Unexpected token',
    });
    expect(verdict.problems).toEqual([
      'content type is text/html, must be application/json',
      'body is not JSON (content type text/html): Unexpected token',
    ]);
    expect(
      contract.checkResponse('GET', '/me', { status: 200, headers: {}, rawBody: '', json: undefined }).problems,
    ).toEqual(['content type is missing, must be application/json', 'body is empty, must be JSON']);
  });

  it('requires the 204 of DELETE /hooks/{id} to have no body', () => {
    expect(
      contract.checkResponse('DELETE', '/hooks/{id}', { status: 204, headers: {}, rawBody: '', json: undefined })
        .problems,
    ).toEqual([]);
    expect(contract.checkResponse('DELETE', '/hooks/{id}', json(204, { ok: true })).problems).toEqual([
      'status 204 must have no body, got 11 bytes',
    ]);
  });

  it("marks the assumed 429 as unspecified so a target's shape is an observation", () => {
    const verdict = contract.checkResponse('GET', '/balance', {
      status: 429,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'slow down',
      json: undefined,
      jsonError: 'body is not JSON',
    });
    expect(verdict.unspecified).toBe(true);
    expect(verdict.problems.length).toBeGreaterThan(0);
  });

  it('tolerates unknown fields in responses (additive changes ship in place)', () => {
    expect(
      contract.checkResponse(
        'POST',
        '/hooks',
        json(200, { id: '0b8e8c3e-5f2a-4c1d-9e7b-2a6f4d8c1b3e', secret: 'whsec_x', createdAt: 'now' }),
      ).problems,
    ).toEqual([]);
  });

  it('maps concrete paths to their templates', () => {
    expect(matchPathTemplate('/hooks/0b8e8c3e-5f2a-4c1d-9e7b-2a6f4d8c1b3e')).toBe('/hooks/{id}');
    expect(matchPathTemplate('/cdrs?limit=5')).toBe('/cdrs');
    expect(matchPathTemplate('/hooks')).toBe('/hooks');
    expect(matchPathTemplate('/invoices')).toBeUndefined();
  });

  it('binds a response whose details the spec leaves open: only the assumed 429 is an observation', () => {
    // GET /cdrs 200 and POST /calls 502 carry x-unspecified notes, yet their schemas bind.
    const cdrs = contract.checkResponse('GET', '/cdrs', json(200, { count: 1, calls: [{ duration: 'long' }] }));
    expect(cdrs.unspecified).toBe(false);
    expect(cdrs.problems).toEqual(['body/calls/0/duration is "long", must be integer']);
    expect(contract.checkResponse('POST', '/calls', json(502, { error: 'engine_not_configured' })).unspecified).toBe(
      false,
    );
  });

  it('lists an operation that openapi.json does not have as a problem', () => {
    expect(contract.checkResponse('PUT', '/me', json(200, {})).problems).toEqual([
      'PUT /me is not an operation of openapi.json',
    ]);
  });
});
