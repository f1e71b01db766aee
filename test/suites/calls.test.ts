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

  it('names a message or other members that may hold it, never "nowhere" while there is a place', () => {
    expect(detailLocation({ error: 'originate_failed', message: 'upstream said no: SIP 503' })).toBe(
      'no "detail" member; in message if anywhere ("upstream said no: SIP 503")',
    );
    expect(detailLocation({ error: 'originate_failed', message: 'failed', upstream: { sip: 503 } })).toBe(
      'no "detail" member; other members: upstream ({"sip":503})',
    );
  });

  it('says nowhere only for a body with error alone, and says when the body is not an object', () => {
    expect(detailLocation({ error: 'originate_failed' })).toBe('nowhere visible (fields: error)');
    expect(detailLocation(undefined)).toBe('the body is not an object');
    expect(detailLocation(null)).toBe('the body is not an object');
    expect(detailLocation('originate_failed')).toBe('the body is not an object');
  });
});
