/** What every held-out set of post-hoc faults from the standards must be: the shared assertions of their tests. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import type { RfcPostHocFault } from '../../reference/post-hoc-faults-rfc.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { control, postJson } from './helpers.ts';

const specPath = resolve(import.meta.dirname, '../..', '../shared/spec/outbound-calling-api-v1.md');

/**
 * At least `min` faults, unique ids with `prefix`, none in `others`, each breaking a sentence the
 * spec holds, naming a section of a standard, and saying what it is in words.
 */
export function expectWellFormedSet(
  set: readonly RfcPostHocFault[],
  { prefix, others, min }: { prefix: string; others: ReadonlySet<string>; min: number },
): void {
  if (!existsSync(specPath)) throw new Error(`the spec is missing at ${specPath}: put shared/ beside the clone`);
  const spec = readFileSync(specPath, 'utf8');
  expect(set.length).toBeGreaterThanOrEqual(min);
  expect(new Set(set.map((f) => f.id)).size).toBe(set.length);
  for (const fault of set) {
    expect(fault.id, fault.id).toMatch(new RegExp(`^${prefix}-[a-z0-9-]+$`));
    expect(others.has(fault.id), `${fault.id} is in another list`).toBe(false);
    expect(spec.includes(fault.breaks), `${fault.id}: "${fault.breaks}" is not in the spec`).toBe(true);
    expect(fault.standard, fault.id).toMatch(/^RFC [0-9]{4} §[0-9]/);
    for (const text of [fault.class, fault.description, fault.nearest, fault.sentence])
      expect(text.length, fault.id).toBeGreaterThan(8);
  }
}

/** Subscribes `target` to dnc.added, has one emitted and the deliveries settle: the first that `arrived` lists. */
export async function firstDelivery<T>(s: ReferenceServer, target: string, arrived: () => readonly T[]): Promise<T> {
  const res = await postJson(s, '/hooks', s.fixtures.tokens.all, { event: 'dnc.added', target_url: target });
  expect(res.status, res.rawBody).toBe(200);
  await control(s, 'POST', '/events', { event: 'dnc.added' });
  await control(s, 'POST', '/idle');
  const got = arrived();
  expect(got.length).toBeGreaterThan(0);
  return got[0]!;
}
