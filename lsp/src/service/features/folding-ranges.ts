/**
 * Folding ranges: every mapping or sequence entry whose value spans lines (steps, inputs, roles, gates,
 * outcomes…), block scalars (prompts), and runs of comment lines. Offsets here; lines at the edge.
 */
import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Node, Pair } from 'yaml';
import type { FileAnalysis } from '../language/types.js';
import { yamlDocument } from '../language/yaml-document.js';

export interface FoldingRangeResult {
  /** an offset on the first line of the range */
  start: number;
  /** an offset on its last line */
  end: number;
  kind: 'comment' | undefined;
}

export function foldingRanges(analysis: FileAnalysis): FoldingRangeResult[] {
  const document = yamlDocument(analysis);
  const text = analysis.text;
  const ranges: FoldingRangeResult[] = [];
  /** Folds from `start` to the last character with content before `end` (a collection runs past its line break). */
  const add = (start: number, end: number) => {
    let e = Math.min(end, text.length);
    while (e > start && /\s/.test(text[e - 1]!)) e--;
    const last = Math.max(start, e - 1);
    if (/[\r\n]/.test(text.slice(start, last))) ranges.push({ start, end: last, kind: undefined });
  };
  const visit = (node: unknown, depth: number) => {
    if (depth > 64) return;
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        if (isPair(item)) {
          const pair = item as Pair;
          const key = (pair.key as Node | null)?.range;
          const value = pair.value as Node | null;
          if (key && value?.range && (isMap(value) || isSeq(value) || isScalar(value)))
            add(key[0], value.range[1]);
          visit(value, depth + 1);
        } else {
          const itemNode = item as Node;
          if ((isMap(itemNode) || isSeq(itemNode)) && itemNode.range)
            add(itemNode.range[0], itemNode.range[1]);
          visit(itemNode, depth + 1);
        }
      }
    }
  };
  if (document) visit(document.contents, 0);

  // Runs of two or more comment lines.
  const lines = /[^\r\n]*(?:\r\n|\r|\n|$)/g;
  let run: { start: number; end: number; count: number } | undefined;
  for (const match of text.matchAll(lines)) {
    const isComment = /^\s*#/.test(match[0]);
    if (isComment) {
      if (run) {
        run.end = match.index;
        run.count++;
      } else run = { start: match.index, end: match.index, count: 1 };
    } else {
      if (run && run.count > 1) ranges.push({ start: run.start, end: run.end, kind: 'comment' });
      run = undefined;
    }
    if (match[0] === '') break;
  }
  if (run && run.count > 1) ranges.push({ start: run.start, end: run.end, kind: 'comment' });
  return ranges.sort((a, b) => a.start - b.start || b.end - a.end);
}
