import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document } from 'yaml';
import type { TemplateInfo } from './template.js';

const WORD = '[a-z][a-z0-9_-]*';
const PART = `(?:\\.\\s*(${WORD})|\\[\\s*['"](${WORD})['"]\\s*\\])`;
const INPUT = new RegExp(`\\binputs\\s*${PART}`, 'g');
const OUTPUT = new RegExp(`\\bsteps\\s*${PART}\\s*\\.\\s*outputs\\s*${PART}`, 'g');

/** Inputs and step outputs (as `step\0output`) that the file's text mentions where nothing was bound. */
export interface Mentions {
  inputs: ReadonlySet<string>;
  outputs: ReadonlySet<string>;
}

/**
 * The inputs and step outputs that the file's text mentions where no expression was bound: templates with
 * a syntax error (their rest is not parsed) and strings nothing reads as a template (the value of a misspelt
 * `promt:`). Found by pattern, so that one mistake does not also make an input or an output look unused.
 */
export function unboundMentions(
  templates: readonly TemplateInfo[],
  document: Document.Parsed | undefined,
): Mentions {
  const inputs = new Set<string>();
  const outputs = new Set<string>();
  const scan = (text: string) => {
    if (!text.includes('inputs') && !text.includes('steps')) return;
    for (const match of text.matchAll(INPUT)) inputs.add((match[1] ?? match[2])!);
    for (const match of text.matchAll(OUTPUT))
      outputs.add(`${match[1] ?? match[2]}\u0000${match[3] ?? match[4]}`);
  };
  const bound = new Set<unknown>();
  for (const info of templates) {
    if (info.syntaxErrors) scan(info.text.value);
    else bound.add(info.text.node);
  }
  // Every string scalar of the document that is not a bound template; iterative, and bounded.
  const stack: unknown[] = [document?.contents];
  let budget = 100_000;
  while (stack.length && budget-- > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (isPair(node)) stack.push(node.key, node.value);
    else if (isScalar(node)) {
      if (typeof node.value === 'string' && !bound.has(node)) scan(node.value);
    } else if (isMap(node) || isSeq(node)) for (const item of node.items as unknown[]) stack.push(item);
  }
  return { inputs, outputs };
}
