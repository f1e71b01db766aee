/**
 * Real parsers for the report files, shared by the report tests: JSON.parse, a strict XML 1.0
 * well-formedness parser (saxes: character ranges, `]]>` in text, entity and tag balance), and
 * the Markdown checks a renderer of GitHub's flavour relies on (valid UTF-8, table rows with
 * the header's number of cells).
 */
import { SaxesParser } from 'saxes';

/** Throws with the parser's own message when the text is not well-formed XML 1.0. */
export function parseXml(text: string): { elements: string[]; attributes: string[]; text: string } {
  const parser = new SaxesParser({ xmlns: false });
  const elements: string[] = [];
  const attributes: string[] = [];
  let content = '';
  let error: Error | undefined;
  parser.on('error', (e) => {
    error ??= e;
  });
  parser.on('opentag', (tag) => {
    elements.push(tag.name);
    for (const value of Object.values(tag.attributes)) attributes.push(String(value));
  });
  parser.on('text', (t) => {
    content += t;
  });
  parser.on('cdata', (t) => {
    content += t;
  });
  parser.write(text).close();
  if (error !== undefined) throw error;
  return { elements, attributes, text: content };
}

/** A pipe table's cells, splitting on pipes that are not escaped. */
export function tableCells(row: string): string[] {
  return row
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/);
}

/** Every table in the Markdown keeps its shape: each row has as many cells as its header. */
export function markdownTableProblems(markdown: string): string[] {
  const problems: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!/^\|.*\|$/.test(lines[i]!) || !/^\|(-+\|)+$/.test(lines[i + 1] ?? '')) continue;
    const width = tableCells(lines[i]!).length;
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j += 1) {
      const cells = tableCells(lines[j]!).length;
      if (cells !== width || !lines[j]!.endsWith('|'))
        problems.push(`line ${j + 1} has ${cells} cells, its table ${width}: ${lines[j]!.slice(0, 120)}`);
    }
  }
  return problems;
}

/** The Markdown outside fenced code blocks (whose content is shown literally). */
export function outsideFences(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const open = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && open !== undefined) fence = open;
    else if (fence !== undefined && line.startsWith(fence) && line.slice(fence.length).trim() === '') fence = undefined;
    else if (fence === undefined) out.push(line);
  }
  return out.join('\n');
}
