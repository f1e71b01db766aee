/**
 * One transport discipline for every exchange (harness/http/transport.ts): nothing in suites/,
 * operators/ or properties/ opens a socket or an HTTP client of its own. Their requests go through
 * the harness (the run's client, `t.callRaw`, harness/http/address-client.ts, the control and
 * receiver clients), where a reset, a stall or a cut body is the network's, never a verdict.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { nodesOf, parse, trackedFiles, where } from './sources.ts';

/** Modules that open sockets or send HTTP requests: only harness/ (and the layers above checks) may import them. */
const TRANSPORT_MODULES =
  /^(node:)?(net|tls|http|https|http2|dgram)$|^undici(\/.*)?$|\/harness\/http\/(undici|raw|warm)\.ts$/;

/** `file:line module` of every import of a transport module, and every global `fetch(` call. */
function transportsOpened(file: string): string[] {
  const source = parse(file);
  return nodesOf(source).flatMap((node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      TRANSPORT_MODULES.test(node.moduleSpecifier.text)
    )
      return [`${where(source, node)} ${node.moduleSpecifier.text}`];
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ['fetch', 'require'].includes(node.expression.text)
    )
      return [`${where(source, node)} ${node.expression.text}(`];
    return [];
  });
}

const CHECK_LAYERS = ['suites/', 'operators/', 'properties/'];

describe('transports', () => {
  it('nothing in suites/, operators/ or properties/ opens a socket or a client except through the harness', () => {
    const files = trackedFiles.filter((file) => CHECK_LAYERS.some((layer) => file.startsWith(layer)));
    expect(files.length).toBeGreaterThan(20);
    expect(files.flatMap(transportsOpened)).toEqual([]);
  });

  it('sees an import of undici, of node:net and a fetch call (the rule is not blind)', () => {
    const text = "import { request } from 'undici';\nimport net from 'node:net';\nawait fetch('http://x');\n";
    const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true);
    const found = nodesOf(source).filter(
      (node) =>
        (ts.isImportDeclaration(node) &&
          ts.isStringLiteral(node.moduleSpecifier) &&
          TRANSPORT_MODULES.test(node.moduleSpecifier.text)) ||
        (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'fetch'),
    );
    expect(found).toHaveLength(3);
    expect(TRANSPORT_MODULES.test('../harness/http/undici.ts')).toBe(true);
    expect(TRANSPORT_MODULES.test('../harness/http/address-client.ts')).toBe(false);
  });
});
