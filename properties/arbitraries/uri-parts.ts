/**
 * RFC 3986 path, query and fragment generators: the same values as fast-check's `fc.webPath()`,
 * `fc.webQueryParameters()` and `fc.webFragments()` (fast-check 4), built without their one
 * costly step.
 *
 * Why not fast-check's own: each of them percent-encodes one code point drawn by
 * `fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })`, and building that string
 * arbitrary tokenizes fast-check's list of "dangerous" strings into code points, which builds a
 * reverse map of all 1.1 million code points: a noticeable cost in every worker that imports the
 * properties, for slices a one-unit string then discards (every dangerous string is longer than
 * one unit). Here the code point is drawn straight from the same alphabet (every code point but
 * the surrogates, U+0000–U+D7FF and U+E000–U+10FFFF, small indexes favoured the same way) and
 * encoded by the same rule, so the properties explore the same space of URLs.
 * test/properties/arbitraries/uri-parts.test.ts holds the two side by side.
 */
import fc from 'fast-check';

type Size = 'xsmall' | 'small' | 'medium' | 'large' | 'xlarge';

const SURROGATES_START = 0xd800;
const SURROGATES_COUNT = 0xe000 - 0xd800;
const CODE_POINTS = 0x10ffff + 1 - SURROGATES_COUNT;

/**
 * fast-check's percentCharArbMapper: encodeURIComponent, or %hex of the char code where that leaves
 * the character as is.
 */
function percentEncoded(c: string): string {
  const encoded = encodeURIComponent(c);
  return c !== encoded ? encoded : `%${c.charCodeAt(0).toString(16)}`;
}

const percentChar: fc.Arbitrary<string> = fc
  .nat({ max: CODE_POINTS - 1 })
  .map((index) => percentEncoded(String.fromCodePoint(index < SURROGATES_START ? index : index + SURROGATES_COUNT)));

const alphaNumeric = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

/** One unit: a letter, digit or one of `others` ten times in eleven, else a percent-encoded code point. */
const unit = (others: string): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...alphaNumeric, ...others) },
    { weight: 1, arbitrary: percentChar },
  );

const segmentUnit = unit("-._~!$&'()*+,;=:@");
const queryOrFragmentUnit = unit("-._~!$&'()*+,;=:@/?");

const segment = (size: Size) => fc.string({ unit: segmentUnit, size });

/** fast-check's sqrtSize: the default size 'small' splits into segments of 'small' and 'xsmall'. */
const path = (segmentSize: Size, segmentsSize: Size) =>
  fc.array(segment(segmentSize), { size: segmentsSize }).map((segments) => segments.map((s) => `/${s}`).join(''));

/** Like `fc.webPath()` at the default size: absolute or empty paths of percent-encoded segments. */
export const webPath = (): fc.Arbitrary<string> => fc.oneof(path('small', 'xsmall'), path('xsmall', 'small'));

/** Like `fc.webQueryParameters()`: the text after `?`. */
export const webQueryParameters = (): fc.Arbitrary<string> => fc.string({ unit: queryOrFragmentUnit });

/** Like `fc.webFragments()`: the text after `#`. */
export const webFragments = (): fc.Arbitrary<string> => fc.string({ unit: queryOrFragmentUnit });
