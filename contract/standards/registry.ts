/**
 * Every rule of the protocol lint, one line per family of the standards (docs/standards.md lists
 * them with their sentences; test/contract/standards-registry.test.ts keeps the two in step).
 */
import type { LintRule } from './rule.ts';
import * as framing from './rules-framing.ts';
import * as http from './rules-http.ts';
import * as json from './rules-json.ts';
import * as oauth from './rules-oauth.ts';
import * as sender from './rules-sender.ts';

export const lintRules: readonly LintRule[] = [
  ...Object.values(http),
  ...Object.values(framing),
  ...Object.values(json),
  ...Object.values(oauth),
  ...Object.values(sender),
];
