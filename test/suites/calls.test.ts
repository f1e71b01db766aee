import { describe, expect, it } from 'vitest';
import { detailLocation } from '../../suites/rules/calls.ts';

describe('calls.suite.ts: detailLocation (CALLS-ORIGINATE-FAILED-DETAIL, recorded)', () => {
  it('says a top-level detail field is one, with its value', () => {
    expect(detailLocation({ error: 'originate_failed', message: 'm', detail: 'SIP 503' })).toBe(
      'a top-level "detail" field ("SIP 503")',
    );
    expect(detailLocation({ error: 'originate_failed', detail: null })).toBe('a top-level "detail" field (null)');
  });

  it('falls back to a message that mentions the detail', () => {
    expect(detailLocation({ error: 'originate_failed', message: 'upstream said no (Detail: busy)' })).toBe(
      'inside message ("upstream said no (Detail: busy)")',
    );
  });

  it('names the fields when the detail is nowhere, and says when the body is not an object', () => {
    expect(detailLocation({ error: 'originate_failed', message: 'failed' })).toBe(
      'nowhere visible (fields: error, message)',
    );
    expect(detailLocation(undefined)).toBe('the body is not an object');
    expect(detailLocation(null)).toBe('the body is not an object');
    expect(detailLocation('originate_failed')).toBe('the body is not an object');
  });
});
