import { isMap } from 'yaml';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import type { QuickFix, TextEdit } from '../../diagnostic.js';
import type { InputDecl } from '../../model/model.js';
import { representative } from '../../types/representative.js';
import { toJsonSchema } from '../../types/type.js';
import { findPair } from '../../yaml/read-yaml.js';

/**
 * A value of an input's type for a test a person will edit: an enum's first member, `a NAME` for a
 * string, the input's `min` (else 0) for a number, `false`, one item in a list. As YAML (JSON is YAML).
 */
export function exampleInputValue(input: InputDecl): string {
  const schema = input.type ? toJsonSchema(input.type) : { type: 'string' };
  const value = representative(schema as Record<string, unknown>, `a ${input.name}`);
  // (a number input's `min` is the input's, not its type's)
  return JSON.stringify(
    typeof value === 'number' && input.min !== undefined ? Math.max(value, input.min) : value,
  );
}

/**
 * PB810's quick fix: writes the missing inputs, each with an example value, under the test's `inputs`
 * (a block mapping gets lines at its indentation, a flow one more entries), or as a new `inputs:` before
 * the test's first key. None where the test's layout is not one of those (a flow mapping at the top, an
 * `inputs:` with nothing after it).
 */
export function missingInputsFix(
  document: Document.Parsed | undefined,
  text: string,
  missing: readonly InputDecl[],
): QuickFix | undefined {
  const entries = missing.map((input) => `${input.name}: ${exampleInputValue(input)}`);
  const title = `Give ${missing.map((input) => input.name).join(', ')} under inputs`;
  const edit = editFor(document, text, entries);
  return edit && { title, edits: [edit] };
}

function editFor(
  document: Document.Parsed | undefined,
  text: string,
  entries: string[],
): TextEdit | undefined {
  const root = document?.contents;
  if (root == null) return { range: { start: 0, end: 0 }, newText: `inputs:\n${lines(entries, '  ')}` };
  if (!isMap(root) || (root as YAMLMap).flow) return undefined;
  const inputs = findPair(root as YAMLMap, 'inputs');
  if (!inputs) {
    const first = ((root as YAMLMap).items[0]?.key as Node | undefined)?.range?.[0] ?? 0;
    const at = lineStart(text, first);
    const indent = text.slice(at, first);
    return { range: { start: at, end: at }, newText: `${indent}inputs:\n${lines(entries, `${indent}  `)}` };
  }
  const map = inputs.value;
  if (!isMap(map)) return undefined;
  return (map as YAMLMap).flow ? flowEdit(map as YAMLMap, entries) : blockEdit(map as YAMLMap, text, entries);
}

/** New lines before the first entry, at its indentation. */
function blockEdit(map: YAMLMap, text: string, entries: string[]): TextEdit | undefined {
  const first = ((map.items[0] as Pair | undefined)?.key as Node | undefined)?.range?.[0];
  if (first === undefined) return undefined;
  const at = lineStart(text, first);
  const indent = text.slice(at, first);
  if (/\S/.test(indent)) return undefined; // (an entry that does not start its line)
  return { range: { start: at, end: at }, newText: lines(entries, indent) };
}

/** More entries after the last one of `{ … }` (inside an empty one, the first). */
function flowEdit(map: YAMLMap, entries: string[]): TextEdit | undefined {
  const last = map.items[map.items.length - 1] as Pair | undefined;
  if (!last) {
    const open = map.range?.[0];
    return open === undefined
      ? undefined
      : { range: { start: open + 1, end: open + 1 }, newText: ` ${entries.join(', ')} ` };
  }
  const end = ((last.value ?? last.key) as Node | null)?.range?.[1];
  return end === undefined ? undefined : { range: { start: end, end }, newText: `, ${entries.join(', ')}` };
}

function lines(entries: readonly string[], indent: string): string {
  return entries.map((entry) => `${indent}${entry}\n`).join('');
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}
