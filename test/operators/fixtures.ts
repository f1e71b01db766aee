/** The project's openapi.json as the operators read it, and a deep copy a test may change. */
import document from '../../openapi.json' with { type: 'json' };
import type { Document } from '../../operators/document.ts';

export const doc = document as unknown as Document;

/** Any JSON value: a test edits the copy at any depth. */
// biome-ignore lint/suspicious/noExplicitAny: the copy is edited freely, at any depth, by the tests
type Editable = Record<string, any>;

/** A deep copy of openapi.json, as a plain object to edit. */
export function copyOfDocument(): Editable {
  return structuredClone(document) as Editable;
}
