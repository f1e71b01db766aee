/**
 * The packed k6 probes import the suite's modules outside load/ as the emitted JavaScript
 * (packaging/k6-imports.ts): k6 then loads plain ES modules, and the package keeps no TypeScript
 * outside dist/load/ for Node to strip.
 */
import { globSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rewriteK6Imports } from '../../packaging/k6-imports.ts';

describe('the k6 probes in the package', () => {
  it('import what lies outside load/ as .js and keep their own .ts imports', () => {
    const source = [
      "import { createRedactor } from '../../harness/http/redact.ts';",
      "import { junitXml } from './junit.ts';",
      "import type { Plan } from './probe-shape.ts';",
      "import http from 'k6/http';",
    ].join('\n');
    const { code, outside } = rewriteK6Imports('load/lib/summary.ts', source);
    expect(code).toContain("from '../../harness/http/redact.js'");
    expect(code).toContain("from './junit.ts'");
    expect(code).toContain("from './probe-shape.ts'");
    expect(code).toContain("from 'k6/http'");
    expect(outside).toEqual(['harness/http/redact.js']);
  });

  it('every module a probe imports from outside load/ is one the build emits (a .ts of the suite)', () => {
    const emitted = /^(cli|contract|harness|reference|requirements|suites|properties)\//;
    for (const file of globSync('load/{*.ts,lib/*.ts}')) {
      if (file === 'load/run.ts') continue; // Node's, emitted itself
      const { outside } = rewriteK6Imports(file, readFileSync(file, 'utf8'));
      for (const module of outside) expect(module, file).toMatch(emitted);
    }
    const { outside } = rewriteK6Imports('load/lib/summary.ts', readFileSync('load/lib/summary.ts', 'utf8'));
    expect(outside).toContain('harness/http/redact.js');
  });
});
