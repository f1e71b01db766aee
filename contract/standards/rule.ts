/**
 * One rule of the protocol lint: a requirement of a standard the spec stands on, applied to every
 * message of the kind it names. A rule is a pure function of one message, with a stable id, the
 * standard's section and its sentence word for word, and a level: a MUST rule's problem fails its
 * requirement; a SHOULD rule's, or what a proxy in front may legitimately do, is an observation.
 */
import type { LintedMessage } from './message.ts';

export type RuleLevel = 'MUST' | 'SHOULD';

/** The requirement a rule's verdict goes to (requirements/standards-lint.ts). */
export type LintRequirement =
  | 'STD-HTTP-AUTH-CHALLENGE'
  | 'STD-HTTP-ALLOW-405'
  | 'STD-HTTP-MESSAGE-FRAMING'
  | 'STD-HTTP-FIELD-SYNTAX'
  | 'STD-HTTP-DATE'
  | 'STD-JSON-TEXT'
  | 'STD-OAUTH-TOKEN-ANSWER'
  | 'STD-OAUTH-ERROR-ANSWER'
  | 'STD-WEBHOOK-HTTP-CLIENT'
  | 'STD-SHOULD-OBSERVED';

export interface LintRule {
  /** Stable id, e.g. LINT-9110-401-CHALLENGE. */
  readonly id: string;
  readonly requirement: LintRequirement;
  readonly level: RuleLevel;
  /** e.g. 'RFC 9110 §15.5.2'. */
  readonly standard: string;
  /** The standard's sentence, word for word. */
  readonly sentence: string;
  /** The messages it reads, in words (docs/standards.md). */
  readonly appliesTo: string;
  /** Whether the message is one of those. */
  applies(message: LintedMessage): boolean;
  /** What is wrong with an applicable message; undefined when it holds. */
  problem(message: LintedMessage): string | undefined;
}

/** A rule's verdict on one message that broke it. */
export interface Finding {
  readonly rule: string;
  readonly requirement: LintRequirement;
  readonly level: RuleLevel;
  /** e.g. "GET /v1/me → 401". */
  readonly message: string;
  readonly problem: string;
}
