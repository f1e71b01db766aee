/**
 * Setup file of the `whole-runs` project (vitest.config.ts): lowers the scheduling priority of
 * the test worker, and so of every process its file starts (they inherit it), by BATCH_NICENESS.
 *
 * Those files are CPU-bound batches (the whole fault catalogue, the variants, packed installs) whose
 * verdicts do not depend on how fast they get the CPU. The `timed-runs` files beside them keep
 * the normal priority: they measure in real time (a k6 probe sending on a fixed schedule, retry
 * intervals), so the kernel gives them the CPU first whenever they want it and the batches take
 * the rest. That is what lets both run at once on 2 cores instead of one after the other.
 * Lowering needs no privilege; the worker ends with its file (the project is isolated), so the
 * lower priority never reaches another file.
 */
import { getPriority, setPriority } from 'node:os';

/** Linux's scale is -20 (first) to 19 (last); 10 gives a batch about a tenth of a normal process's share. */
const BATCH_NICENESS = 10;

setPriority(Math.min(19, getPriority() + BATCH_NICENESS));
