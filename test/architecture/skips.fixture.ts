/** What test/architecture/skips.test.ts must find: four conditional skips (never run: no test here). */
import { describe, it } from 'vitest';

declare const available: boolean;

export function skipping(): void {
  it.skipIf(!available)('a', () => {});
  describe.runIf(available)('b', () => {});
  it('c', (ctx) => {
    if (!available) ctx.skip();
  });
  if (!available) it.skip('d', () => {});
}
