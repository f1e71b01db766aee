/**
 * A self-proof runner process (forked by self-proof/catalogue.ts over IPC): the composition root
 * of its run, given the fault catalogue and the reference's starters (self-proof/runner.ts).
 */
import { faults } from '../reference/faults.ts';
import { serveRunner } from '../self-proof/runner.ts';
import { referenceStarters } from './embedded-reference.ts';

await serveRunner(faults, referenceStarters);
