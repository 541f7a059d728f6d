/**
 * The YAML document of an analysis, and small queries over it: the chain of keys down to an offset, a pair by
 * its key path, the full range of a pair. The document is the compiler's own (`analysis.semantic.document`)
 * when it checked the file; otherwise (no mapping at the top, too many steps) it is parsed here once per
 * analysis with the compiler's options, which gives the same nodes and ranges. Parsing again would cost
 * about as much as the whole check (~0.5–0.9 s on a 2,000-step playbook) on the first hover after an edit.
 */
import { isMap, isPair, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import type { FileAnalysis, OffsetRange } from './types.js';

const documents = new WeakMap<FileAnalysis, Document.Parsed | null>();
/** The compiler's own limit (compiler/src/yaml/read-yaml.ts): bigger files are refused, not parsed. */
const MAX_SIZE = 8 * 1024 * 1024;

/** What the compiler parses: a lone CR read as a line feed (same length, so offsets hold). */
export function parsedText(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}

export function yamlDocument(analysis: FileAnalysis): Document.Parsed | undefined {
  const checked = analysis.semantic?.document;
  if (checked) return checked;
  let document = documents.get(analysis);
  if (document === undefined) {
    document = null;
    if (analysis.text.length <= MAX_SIZE && !analysis.text.includes('\u0000')) {
      try {
        document =
          (
            parseAllDocuments(parsedText(analysis.text), {
              keepSourceTokens: true,
              prettyErrors: false,
              uniqueKeys: false,
              strict: true,
            }) as Document.Parsed[]
          )[0] ?? null;
      } catch {
        document = null;
      }
    }
    documents.set(analysis, document);
  }
  return document ?? undefined;
}

export function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

export function rangeOfNode(node: Node | null | undefined): OffsetRange | undefined {
  const range = node?.range;
  return range ? { start: range[0], end: range[1] } : undefined;
}

/** The whole of a pair: from its key through its value. */
export function pairRange(pair: Pair): OffsetRange | undefined {
  const key = rangeOfNode(pair.key as Node | null);
  if (!key) return undefined;
  const value = rangeOfNode(pair.value as Node | null);
  return { start: key.start, end: Math.max(key.end, value?.end ?? key.end) };
}

/** The pair at a key path (`['steps', 'plan', 'needs']`), following mappings only. */
export function pairAt(document: Document.Parsed, path: readonly string[]): Pair | undefined {
  let node = document.contents as Node | null;
  let pair: Pair | undefined;
  for (const key of path) {
    if (!isMap(node)) return undefined;
    pair = (node as YAMLMap).items.find((p) => keyText(p as Pair) === key) as Pair | undefined;
    if (!pair) return undefined;
    node = pair.value as Node | null;
  }
  return pair;
}

export interface NodeStep {
  /** the key of the pair this step went through, or the index in a sequence */
  key: string | number;
  pair: Pair | undefined;
  node: Node | null;
}

/**
 * The chain from the root down to the innermost node holding `offset`: the keys (and sequence indices) on the
 * way, and whether the offset is on the last pair's key.
 */
export function pathAt(document: Document.Parsed, offset: number): { steps: NodeStep[]; onKey: boolean } {
  const steps: NodeStep[] = [];
  let node = document.contents as Node | null;
  for (;;) {
    if (isMap(node)) {
      let next: NodeStep | undefined;
      for (const item of (node as YAMLMap).items) {
        const pair = item as Pair;
        const key = rangeOfNode(pair.key as Node | null);
        const name = keyText(pair) ?? '';
        if (key && key.start <= offset && offset <= key.end) {
          steps.push({ key: name, pair, node: pair.value as Node | null });
          return { steps, onKey: true };
        }
        const value = rangeOfNode(pair.value as Node | null);
        if (value && value.start <= offset && offset <= value.end) {
          next = { key: name, pair, node: pair.value as Node | null };
          break;
        }
      }
      if (!next) return { steps, onKey: false };
      steps.push(next);
      node = next.node;
    } else if (isSeq(node)) {
      const index = node.items.findIndex((item) => {
        const range = rangeOfNode(isPair(item) ? (item.key as Node) : (item as Node));
        return range !== undefined && range.start <= offset && offset <= range.end;
      });
      if (index < 0) return { steps, onKey: false };
      const item = node.items[index] as Node;
      steps.push({ key: index, pair: undefined, node: item });
      node = item;
    } else {
      return { steps, onKey: false };
    }
  }
}
