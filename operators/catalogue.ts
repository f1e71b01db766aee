/**
 * The near-miss operator catalogue: every operator of every request-shape family, and every probe
 * they derive from a document. docs/near-misses.md lists the same operators (a test keeps the two
 * in step). Pure.
 */
import type { Document } from './document.ts';
import { credentialOperators, credentialProbes, rankCredentials, type CredentialProbe } from './credentials.ts';
import { issuedTokenOperators, issuedTokenProbes, type TokenProbe } from './issued-tokens.ts';
import { identifierOperators, identifierProbes, rankIdentifiers, type IdentifierProbe } from './identifiers.ts';
import { numberOperators, numberProbes, rankNumbers } from './numbers.ts';
import type { OperatorInfo, ValueProbe } from './operator.ts';
import { rankStrings, stringOperators, stringProbes } from './strings.ts';
import { rankSurface, surfaceOperators, surfaceProbes, type SurfaceProbe } from './surface.ts';

const info = ({ id, family, appliesTo, verdict, because }: OperatorInfo): OperatorInfo => ({
  id,
  family,
  appliesTo,
  verdict,
  because,
});

export const operators: readonly OperatorInfo[] = [
  ...surfaceOperators,
  ...credentialOperators,
  ...stringOperators.map(info),
  ...numberOperators,
  ...identifierOperators,
  ...issuedTokenOperators,
];

export interface DerivedProbes {
  readonly surface: readonly SurfaceProbe[];
  readonly credentials: readonly CredentialProbe[];
  readonly strings: readonly ValueProbe[];
  readonly numbers: readonly ValueProbe[];
  readonly identifiers: readonly IdentifierProbe[];
  readonly issuedTokens: readonly TokenProbe[];
}

/** Every near-miss probe of `doc`, by family. */
export function deriveProbes(doc: Document): DerivedProbes {
  return {
    surface: surfaceProbes(doc),
    credentials: credentialProbes(doc),
    strings: stringProbes(doc),
    numbers: numberProbes(doc),
    identifiers: identifierProbes(doc),
    issuedTokens: issuedTokenProbes(doc),
  };
}

/**
 * The same probes, each family's ranked likeliest slip first (the ranking and why beside each
 * family's rank function): the order the request budget sends them in (docs/near-misses.md).
 */
export function rankProbes(derived: DerivedProbes): DerivedProbes {
  return {
    surface: rankSurface(derived.surface),
    credentials: rankCredentials(derived.credentials),
    strings: rankStrings(derived.strings),
    numbers: rankNumbers(derived.numbers),
    identifiers: rankIdentifiers(derived.identifiers),
    // In the order written: likeliest slip first.
    issuedTokens: derived.issuedTokens,
  };
}
