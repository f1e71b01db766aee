import { describe, expect, it } from 'vitest';
import {
  imfFixdate,
  isEntityTag,
  isMediaType,
  isTokenList,
  isUriReference,
  parseChallenges,
  repeatedNames,
} from '../../../contract/standards/grammar.ts';

describe('the ABNF the lint reads', () => {
  it('takes media types with parameters, quoted or not, and refuses what is not one (RFC 9110 §8.3.1)', () => {
    for (const ok of ['application/json', 'application/json; charset=utf-8', 'text/plain;charset="utf-8"', 'a/b;;c=d'])
      expect(isMediaType(ok), ok).toBe(true);
    for (const bad of ['application json', 'json', 'application/json; charset', 'application/json; a=b c', ''])
      expect(isMediaType(bad), bad).toBe(false);
  });

  it('reads IMF-fixdates, refusing the obsolete forms, impossible dates and a wrong day name (RFC 9110 §5.6.7)', () => {
    expect(imfFixdate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    for (const bad of [
      'Sunday, 06-Nov-94 08:49:37 GMT',
      'Sun Nov  6 08:49:37 1994',
      'Mon, 06 Nov 1994 08:49:37 GMT',
      'Sun, 31 Nov 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 UTC',
      '1994-11-06T08:49:37Z',
    ])
      expect(imfFixdate(bad), bad).toBeUndefined();
  });

  it('tells URI references, entity tags and method lists from what they are not', () => {
    expect(isUriReference('/v1/hooks/4a3e?x=%20y#f')).toBe(true);
    expect(isUriReference('/v1/hooks/a b')).toBe(false);
    expect(isUriReference('/x/%zz')).toBe(false);
    expect(isEntityTag('W/"abc"')).toBe(true);
    expect(isEntityTag('"a"')).toBe(true);
    expect(isEntityTag('abc')).toBe(false);
    expect(isTokenList('GET, HEAD')).toBe(true);
    expect(isTokenList('')).toBe(true);
    expect(isTokenList('GET HEAD')).toBe(false);
  });

  it('parses challenges with auth-params and token68, says where a value stops being one (RFC 9110 §11.6.1)', () => {
    expect(parseChallenges('Bearer realm="api", error="invalid_token"')).toEqual([
      {
        scheme: 'Bearer',
        params: [
          ['realm', 'api'],
          ['error', 'invalid_token'],
        ],
      },
    ]);
    expect(parseChallenges('Basic realm="oauth", charset="UTF-8", Bearer')).toEqual([
      {
        scheme: 'Basic',
        params: [
          ['realm', 'oauth'],
          ['charset', 'UTF-8'],
        ],
      },
      { scheme: 'Bearer', params: [] },
    ]);
    expect(parseChallenges('Negotiate abc==, Bearer realm=x')).toEqual([
      { scheme: 'Negotiate', token68: 'abc==', params: [] },
      { scheme: 'Bearer', params: [['realm', 'x']] },
    ]);
    expect(typeof parseChallenges('')).toBe('string');
    expect(typeof parseChallenges('Bearer realm="unterminated')).toBe('string');
    expect(typeof parseChallenges('"quoted"')).toBe('string');
  });

  it('finds the member names an object of a JSON text repeats (RFC 8259 §4), at any depth', () => {
    expect(repeatedNames('{"a":1,"b":{"c":1,"c":2},"a":[{"d":"}"}]}').sort()).toEqual(['a', 'c']);
    expect(repeatedNames('{"a":{"x":1},"b":{"x":1}}')).toEqual([]);
    expect(repeatedNames('["a","a"]')).toEqual([]);
    expect(repeatedNames('{"a\\u0062":1,"ab":2}')).toEqual(['ab']);
  });
});
