import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { webFragments, webPath, webQueryParameters } from '../../../properties/arbitraries/uri-parts.ts';

// RFC 3986 §3.3 path-abempty and §3.4/3.5 query / fragment, with fast-check's percent-encodings
// (lower-case hex included).
const pchar = String.raw`(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})`;
const pathGrammar = new RegExp(`^(?:/${pchar}*)*$`);
const queryGrammar = new RegExp(`^(?:${pchar}|[/?])*$`);
const samples = { numRuns: 400, seed: 42 };

/** What kinds of value a sample holds, so the two generators can be compared by kind. */
function kinds(values: string[]): Set<string> {
  const found = new Set<string>();
  for (const value of values) {
    if (value === '') found.add('empty');
    if (/%[0-9A-F]{2}%[0-9A-F]{2}/.test(value)) found.add('multi-byte encoding');
    if (/%[0-9a-f]*[a-f][0-9a-f]*(?![0-9A-Fa-f])/.test(value) || /%[0-7][a-f]/.test(value)) found.add('lower-case hex');
    if (/[A-Za-z0-9]/.test(value)) found.add('alphanumeric');
    if (/[-._~!$&'()*+,;=:@]/.test(value)) found.add('sub-delims or unreserved');
    if ((value.match(/\//g) ?? []).length >= 3) found.add('several slashes');
  }
  return found;
}

describe('uri parts: the values of fast-check’s webPath / webQueryParameters / webFragments, built cheaply', () => {
  it('every generated path is one fast-check’s fc.webPath() can produce, and keeps to RFC 3986', () => {
    const theirs = fc.webPath();
    for (const path of fc.sample(webPath(), samples)) {
      expect(path).toMatch(pathGrammar);
      expect(theirs.canShrinkWithoutContext(path), path).toBe(true);
    }
  });

  it('every generated query and fragment is one fast-check’s own can produce', () => {
    const query = fc.webQueryParameters();
    const fragment = fc.webFragments();
    for (const value of fc.sample(webQueryParameters(), samples)) {
      expect(value).toMatch(queryGrammar);
      expect(query.canShrinkWithoutContext(value), value).toBe(true);
    }
    for (const value of fc.sample(webFragments(), samples))
      expect(fragment.canShrinkWithoutContext(value), value).toBe(true);
  });

  it('explores the paths fc.webPath() does: empty, alphanumeric, delimiters, percent-encodings of every width', () => {
    const ours = fc.sample(webPath(), { numRuns: 2000, seed: 7 });
    const theirs = fc.sample(fc.webPath(), { numRuns: 2000, seed: 7 });
    for (const path of theirs) expect(path).toMatch(pathGrammar);
    expect([...kinds(ours)].sort()).toEqual([...kinds(theirs)].sort());
    expect(kinds(ours).size).toBeGreaterThanOrEqual(6);
  });
});
