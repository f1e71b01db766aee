/** What the reference's fault lists must be and do: the assertions their tests share. */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import type { RfcPostHocFault } from '../../reference/post-hoc-faults-rfc.ts';
import type { ReferenceServer } from '../../reference/server.ts';
import { control, postJson, reset } from './helpers.ts';

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

/**
 * One `it` per fault: its probe sees no deviation with the fault off and sees it with the fault on
 * (switched through the control API), on the server `serverOf` names for it.
 */
export function itChangesWhatItNames<Id extends string>(
  probes: Readonly<Partial<Record<Id, (s: ReferenceServer) => Promise<boolean>>>>,
  serverOf: (id: Id) => ReferenceServer,
): void {
  for (const [id, probe] of Object.entries(probes) as Array<[Id, (s: ReferenceServer) => Promise<boolean>]>) {
    it(id, async () => {
      const s = serverOf(id);
      await reset(s, []);
      expect(await probe(s), `${id}: deviation seen with the fault off`).toBe(false);
      await reset(s, [id]);
      expect(await probe(s), `${id}: no deviation with the fault on`).toBe(true);
      await reset(s, []);
    });
  }
}
