import { isAlias, isMap, isPair, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Document, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import type { Diagnostic } from '../diagnostic.js';

/** Refusal limits for hostile input: each gives one PB100 diagnostic instead of a hang or a crash. */
export const LIMITS = {
  /** bytes of UTF-16 text; a playbook is a few hundred lines, generated ones a few ten thousand */
  maxFileSize: 8 * 1024 * 1024,
  /** nodes produced while expanding aliases (an alias bomb multiplies them) */
  maxAliasExpansion: 10_000,
  /** nesting depth of collections */
  maxDepth: 64,
};

export interface YamlSource {
  file: string;
  text: string;
  /** the first document, absent when there is nothing to check (empty file, refused input) */
  document: Document.Parsed | undefined;
  /** the plain value of the document for schema validation: objects without prototypes' surprises */
  value: unknown;
  diagnostics: Diagnostic[];
}

const FRIENDLY: Record<string, string> = {
  TAB_AS_INDENT: 'tabs are not allowed for indentation in YAML; indent with spaces',
  BAD_INDENT: 'bad indentation',
  MISSING_CHAR: 'missing character',
  UNEXPECTED_TOKEN: 'unexpected token',
  BLOCK_AS_IMPLICIT_KEY: 'a block value cannot be an implicit key',
  MULTILINE_IMPLICIT_KEY: 'an implicit key must be on a single line',
};

function yamlDiagnostic(file: string, code: string, message: string, start: number, end: number): Diagnostic {
  const friendly = FRIENDLY[code];
  const text = friendly && !message.toLowerCase().startsWith(friendly) ? `${friendly}: ${message}` : message;
  return {
    file,
    range: { start, end: Math.max(end, start) },
    severity: 'error',
    code: 'PB100',
    message: text,
  };
}

/** Reads one playbook file's text into a YAML document, refusing what must not be parsed. */
export function readYaml(file: string, text: string): YamlSource {
  const result: YamlSource = { file, text, document: undefined, value: undefined, diagnostics: [] };
  const refuse = (message: string, start = 0, end = 0) => {
    result.diagnostics.push({ file, range: { start, end }, severity: 'error', code: 'PB100', message });
    return result;
  };
  if (text.length > LIMITS.maxFileSize) {
    return refuse(
      `file is too large to be a playbook (${text.length} characters; the limit is ${LIMITS.maxFileSize}); split it`,
    );
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0)
    return refuse('this is a binary file, not a YAML playbook (it contains a NUL byte)', nul, nul + 1);

  let documents: Document.Parsed[];
  try {
    documents = parseAllDocuments(text, {
      keepSourceTokens: true,
      prettyErrors: false,
      // duplicate keys are found while converting, where the key's place is known (PB101 or PB600)
      uniqueKeys: false,
      strict: true,
    }) as Document.Parsed[];
  } catch (error) {
    // The yaml parser recurses on nesting; a pathological file can exhaust the stack.
    if (error instanceof RangeError) return refuse('the YAML is nested too deeply to be read');
    throw error;
  }
  if (!Array.isArray(documents)) documents = [documents];
  const first = documents[0];
  for (let i = 1; i < documents.length; i++) {
    const extra = documents[i]!;
    const start = extra.range[0];
    const marker = text.lastIndexOf('---', start + 3);
    const at = marker >= 0 && marker <= start ? marker : start;
    result.diagnostics.push(
      yamlDiagnostic(
        file,
        'MULTIPLE_DOCS',
        'one playbook per file: a second YAML document starts here',
        at,
        at + 3,
      ),
    );
    break;
  }
  if (!first) return result;
  for (const error of first.errors) {
    const [start, end] = error.pos;
    result.diagnostics.push(yamlDiagnostic(file, error.code, error.message, start, end));
  }
  result.document = first;
  const converter = new PlainConverter(first, file, result.diagnostics);
  result.value = first.contents ? converter.convert(first.contents as Node, 0, '') : undefined;
  return result;
}

/** Sets an own property even for names like `__proto__`, so no input can reach a prototype. */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

class PlainConverter {
  private expanded = 0;
  private refused = false;

  constructor(
    private readonly document: Document.Parsed,
    private readonly file: string,
    private readonly diagnostics: Diagnostic[],
  ) {}

  convert(node: Node, depth: number, path: string, viaAlias = false): unknown {
    if (this.refused) return null;
    if (viaAlias && ++this.expanded > LIMITS.maxAliasExpansion) {
      this.refuse(
        node,
        `aliases expand to more than ${LIMITS.maxAliasExpansion} nodes; refusing to read further`,
      );
      return null;
    }
    if (depth > LIMITS.maxDepth) {
      this.refuse(node, `nesting is deeper than ${LIMITS.maxDepth} levels`);
      return null;
    }
    if (isAlias(node)) {
      const target = node.resolve(this.document);
      if (!target) return null;
      return this.convert(target as Node, depth, path, true);
    }
    if (isScalar(node)) return scalarValue(node);
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of (node as YAMLMap).items) {
        const key = isScalar(pair.key)
          ? String((pair.key as Scalar).value)
          : pair.key == null
            ? ''
            : String(pair.key);
        if (Object.prototype.hasOwnProperty.call(out, key)) {
          if (!viaAlias) this.duplicate(pair.key as Node | null, key, path);
          continue;
        }
        const childPath = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        defineOwn(
          out,
          key,
          pair.value == null ? null : this.convert(pair.value as Node, depth + 1, childPath, viaAlias),
        );
      }
      return out;
    }
    if (isSeq(node)) {
      return (node as YAMLSeq).items.map((item, index) =>
        item == null ? null : this.convert(item as Node, depth + 1, `${path}/${index}`, viaAlias),
      );
    }
    if (isPair(node)) return null;
    return null;
  }

  /** The first of duplicate keys wins; the later ones are the mistake. Gate choices have their own code. */
  private duplicate(keyNode: Node | null, key: string, path: string): void {
    const { start, end } = rangeOf(keyNode);
    const isChoice = /^\/steps\/[^/]+\/gate\/choices$/.test(path);
    this.diagnostics.push({
      file: this.file,
      range: { start, end },
      severity: 'error',
      code: isChoice ? 'PB600' : 'PB101',
      message: isChoice
        ? `duplicate choice "${key}" in this gate`
        : `duplicate key "${key}"; the first one is used`,
    });
  }

  private refuse(node: Node, message: string): void {
    this.refused = true;
    const [start, end] = node.range ?? [0, 0];
    this.diagnostics.push(yamlDiagnostic(this.file, 'LIMIT', message, start, Math.min(end, start + 1_000)));
  }
}

function scalarValue(node: Scalar): unknown {
  const value = node.value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return node.source ?? value.toISOString();
  return value;
}

/** Finds the node at a JSON pointer (as ajv's instancePath gives it). */
export function nodeAtPointer(document: Document.Parsed, pointer: string): Node | undefined {
  let node = document.contents as Node | null;
  if (!pointer) return node ?? undefined;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = resolveAlias(document, node);
    if (isMap(node)) {
      const pair = findPair(node as YAMLMap, segment);
      node = (pair?.value as Node | null) ?? null;
    } else if (isSeq(node)) {
      node = ((node as YAMLSeq).items[Number(segment)] as Node | undefined) ?? null;
    } else return undefined;
    if (!node) return undefined;
  }
  return node ?? undefined;
}

export function pairAtPointer(document: Document.Parsed, pointer: string, key: string): Pair | undefined {
  const parent = resolveAlias(document, nodeAtPointer(document, pointer) ?? null);
  return isMap(parent) ? findPair(parent as YAMLMap, key) : undefined;
}

function resolveAlias(document: Document.Parsed, node: Node | null): Node | null {
  return node && isAlias(node) ? ((node.resolve(document) as Node | undefined) ?? null) : node;
}

export function findPair(map: YAMLMap, key: string): Pair | undefined {
  for (const pair of map.items) {
    const k = pair.key;
    if (isScalar(k) ? String((k as Scalar).value) === key : String(k) === key) return pair as Pair;
  }
  return undefined;
}

export function rangeOf(node: Node | null | undefined): { start: number; end: number } {
  const range = node?.range;
  return range ? { start: range[0], end: range[1] } : { start: 0, end: 0 };
}
