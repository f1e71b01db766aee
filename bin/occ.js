#!/usr/bin/env node
// The `occ` command. From a clone it runs the TypeScript source (Node 24 strips the types);
// from the installed package, where Node refuses to strip types under node_modules, it runs the
// JavaScript that `npm pack` emitted into dist/ (packaging/build.ts).
import { existsSync } from 'node:fs';

const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  process.stderr.write(
    `occ: needs Node 24 or later (this is Node ${process.versions.node}); install Node 24 and run again\n`,
  );
  process.exit(2);
}
const source = new URL('../commands/occ.ts', import.meta.url);
const { main } = await import(
  existsSync(source) ? source.href : new URL('../dist/commands/occ.js', import.meta.url).href
);
const code = await main(process.argv.slice(2));
if (code !== undefined) process.exitCode = code;
