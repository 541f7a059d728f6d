import { Composer, Lexer, Parser, isAlias, isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Alias, Document, Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic, OffsetRange } from '../diagnostic.js';
import type { NameRef } from '../model/model.js';
import { damageAround } from './damage.js';
import { describeYamlError } from './yaml-errors.js';

/** Refusal limits for hostile input: each gives one PB100 diagnostic instead of a hang or a crash. */
export const YAML_LIMITS = {
  /** bytes of UTF-16 text; a playbook is a few hundred lines, generated ones a few ten thousand */
  maxFileSize: 8 * 1024 * 1024,
  /** nodes produced while expanding aliases (an alias bomb multiplies them) */
  maxAliasExpansion: 10_000,
  /** nesting depth of collections */
  maxDepth: 64,
  /**
   * scalars and flow collections in the file, counted before it is parsed: the parsed document takes
   * about 1 KB per node (8 MB of `[a,a,a,…]` would take 4 GB); a 10,000-step playbook has about 200,000
   */
  maxValues: 500_000,
  /** steps and after-tasks of one playbook (the needs graph takes steps² bits) */
  maxSteps: 10_000,
};

export interface YamlSource {
  file: string;
  text: string;
  /** the first document, absent when there is nothing to check (empty file, refused input) */
  document: Document.Parsed | undefined;
  /** the plain value of the document for schema validation: objects without prototypes' surprises */
  value: unknown;
  diagnostics: Diagnostic[];
  /** the parts of the file a syntax error makes unreliable (see `damageAround`) */
  damaged: OffsetRange[];
  /** the text as parsed: `text` with each lone CR made LF (same length, same offsets) */
  parsedText: string;
  /** what each alias of the document names (see `aliasTargets`) */
  aliases: Map<Alias, Node | undefined>;
  /**
   * Keys that are not scalars (a list, a mapping or an alias: PB104), kept apart: one inside a value the
   * schema check finds of the wrong shape (`prompt: {{ inputs.task }}` is a mapping with a mapping for a
   * key) is that mistake's echo.
   */
  keysNotNames: { range: OffsetRange; what: 'an alias' | 'a mapping' | 'a list' }[];
  /** the later of two choices of the same name in a gate (PB600; other duplicate keys are PB101 here) */
  duplicateChoices: NameRef[];
}

/** PB100: the file is not (or not only, or too much of) YAML the toolchain reads. */
export function unreadable(file: string, range: OffsetRange, message: string): Diagnostic {
  return createDiagnostic(file, 'PB100', range, message);
}

function yamlDiagnostic(file: string, message: string, start: number, end: number): Diagnostic {
  return unreadable(file, { start, end: Math.max(end, start) }, message);
}

/** Reads one playbook file's text into a YAML document, refusing what must not be parsed. */
export function readYaml(file: string, text: string): YamlSource {
  const result: YamlSource = {
    file,
    text,
    document: undefined,
    value: undefined,
    diagnostics: [],
    damaged: [],
    parsedText: text,
    aliases: new Map(),
    keysNotNames: [],
    duplicateChoices: [],
  };
  const refuse = (message: string, start = 0, end = 0) => {
    result.diagnostics.push(unreadable(file, { start, end }, message));
    return result;
  };
  if (text.length > YAML_LIMITS.maxFileSize) {
    return refuse(
      `file is too large to be a playbook (${text.length} characters; the limit is ${YAML_LIMITS.maxFileSize}); split it`,
    );
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0)
    return refuse('this is a binary file, not a YAML playbook (it contains a NUL byte)', nul, nul + 1);

  // YAML breaks lines at CR too; the parser only at LF and CRLF. A lone CR becomes LF: same offsets.
  if (text.includes('\r')) result.parsedText = text.replace(/\r(?!\n)/g, '\n');

  let documents: Document.Parsed[];
  let mayHaveAliases: boolean;
  try {
    ({ documents, mayHaveAliases } = parseCounted(result.parsedText));
  } catch (error) {
    if (error instanceof TooManyValues) return crowdedRefusal(refuse, error.offset);
    // The yaml parser recurses on nesting; a pathological file can exhaust the stack. (Counting stopped
    // there: a crowded file is still refused as crowded, as when the values were counted first.)
    if (error instanceof RangeError) {
      const crowded = text.length > YAML_LIMITS.maxValues ? pastValueLimit(result.parsedText) : undefined;
      if (crowded !== undefined) return crowdedRefusal(refuse, crowded);
      return refuse('the YAML is nested too deeply to be read');
    }
    throw error;
  }
  const first = documents[0];
  if (documents[1]) result.diagnostics.push(secondDocument(file, text, documents[1]));
  if (!first) return result;
  // One syntax error, one diagnostic: the errors the parser reports next to it are mostly its fallout
  // (tabs excepted: each tab-indented line is a mistake of its own).
  // The parser ran out of stack on deep nesting: the depth limit below says so, where it starts, and
  // the errors around it (brackets it never saw closed) are its fallout.
  const errors = [...first.errors].sort((a, b) => a.pos[0] - b.pos[0]);
  const tooDeep = errors.find((error) => /call stack/i.test(error.message))?.pos[0];
  const reported = new Set<string>();
  for (const error of tooDeep === undefined ? errors : []) {
    const [start, end] = error.pos;
    const inside = result.damaged.some((r) => start >= r.start && start < r.end);
    if (inside && error.code !== 'TAB_AS_INDENT') continue;
    const report = describeYamlError(error.code, error.message, [start, end], result.parsedText, first);
    // Nested unclosed collections give one error each, all traced back to the same bracket: say it once.
    const at = `${report.start}:${report.end}`;
    if (!reported.has(at)) {
      reported.add(at);
      result.diagnostics.push(yamlDiagnostic(file, report.message, report.start, report.end));
    }
    if (!inside) result.damaged.push(damageAround(first, result.parsedText, start));
  }
  result.document = first;
  // (walking a big document for aliases it has none of is a few percent of a `check`)
  if (mayHaveAliases) result.aliases = aliasTargets(first);
  const converter = new PlainConverter(
    first,
    result.parsedText,
    file,
    result.diagnostics,
    result.damaged,
    result.aliases,
    result,
  );
  result.value = first.contents ? converter.convert(first.contents as Node, 0) : undefined;
  if (tooDeep !== undefined && !converter.refused) {
    result.diagnostics.push(
      yamlDiagnostic(file, 'the YAML is nested too deeply to be read', tooDeep, tooDeep + 1),
    );
    result.damaged.push({ start: 0, end: text.length });
  }
  // The parser may place an error just past the end (a "[" alone): keep every range inside the text.
  for (const d of result.diagnostics) {
    d.range.start = Math.min(Math.max(d.range.start, 0), text.length);
    d.range.end = Math.min(Math.max(d.range.end, d.range.start), text.length);
  }
  return result;
}

/** One playbook per file: the second document is the mistake (the ones after it are its echo). */
function secondDocument(file: string, text: string, second: Document.Parsed): Diagnostic {
  const start = second.range[0];
  const marker = text.lastIndexOf('---', start + 3);
  const at = marker >= 0 && marker <= start ? marker : start;
  return yamlDiagnostic(file, 'one playbook per file: a second YAML document starts here', at, at + 3);
}

function crowdedRefusal(refuse: (message: string, start?: number, end?: number) => YamlSource, at: number) {
  return refuse(
    `too many values to check (more than ${YAML_LIMITS.maxValues} scalars and collections); split the playbook`,
    at,
    at + 1,
  );
}

/** Thrown by `parseCounted` at the value past `YAML_LIMITS.maxValues`: `offset` is where it starts. */
class TooManyValues extends Error {
  constructor(readonly offset: number) {
    super('too many values');
  }
}

/**
 * `parseAllDocuments(text, …)` with the values counted on the lexer's tokens as they pass to the parser
 * (one lexing, not two): past `YAML_LIMITS.maxValues` it throws `TooManyValues` at the token that
 * crosses the limit, before the composer builds the nodes of the document being read. Counts as
 * `pastValueLimit` does, token for token. `mayHaveAliases` is false when no token starts with `*`, so
 * no document has an alias (a block scalar's text may start with one too: then it is only a maybe).
 */
function parseCounted(text: string): { documents: Document.Parsed[]; mayHaveAliases: boolean } {
  const parser = new Parser();
  const composer = new Composer({
    // No source tokens kept on the nodes: the CST would live as long as the document, a good part of the
    // garbage collector's work on a big file (issue 28); the scalar maps do without them (scalar-map.ts).
    keepSourceTokens: false,
    prettyErrors: false,
    // duplicate keys are found while converting, where the key's place is known (PB101 or PB600)
    uniqueKeys: false,
    strict: true,
  });
  // (every value takes a character at least: a shorter file need not be counted)
  const count = text.length > YAML_LIMITS.maxValues;
  let mayHaveAliases = false;
  function* tokens() {
    let values = 0;
    let offset = 0;
    for (const token of new Lexer().lex(text)) {
      if (token.charCodeAt(0) === 0x2a) mayHaveAliases = true; // *
      if (count) {
        if (isValueToken(token) && ++values > YAML_LIMITS.maxValues) throw new TooManyValues(offset);
        if (!isMarker(token)) offset += token.length;
      }
      yield* parser.next(token);
    }
    yield* parser.end();
  }
  const documents = Array.from(composer.compose(tokens())) as Document.Parsed[];
  return { documents, mayHaveAliases };
}

/** The lexer's one-character markers with no text of their own (see `pastValueLimit`). */
function isMarker(token: string): boolean {
  const first = token.charCodeAt(0);
  return token.length === 1 && (first === 0x1f || first === 0x02 || first === 0x18);
}

/** A token that starts a value, as `pastValueLimit` counts them. */
function isValueToken(token: string): boolean {
  const first = token.charCodeAt(0);
  if (token.length === 1 && (first === 0x1f || first === 0x02 || first === 0x18)) return first === 0x1f;
  return (
    first === 0x22 ||
    first === 0x27 ||
    first === 0x7c ||
    first === 0x3e ||
    first === 0x5b ||
    first === 0x7b ||
    first === 0x2a
  );
}

/**
 * Where the value that goes past `YAML_LIMITS.maxValues` starts, if one does. Counted on the lexer's tokens,
 * which cost no memory, before the parser builds the nodes, which do. The lexer yields the text in
 * pieces, plus one-character markers with no text of their own (a plain scalar follows, a document
 * starts, a flow collection ends in error).
 */
function pastValueLimit(text: string): number | undefined {
  let values = 0;
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    const first = token.charCodeAt(0);
    if (token.length === 1 && (first === 0x1f || first === 0x02 || first === 0x18)) {
      if (first === 0x1f && ++values > YAML_LIMITS.maxValues) return offset;
      continue;
    }
    // quoted and block scalars, flow collections and aliases (a plain scalar was counted by its marker)
    if (
      first === 0x22 ||
      first === 0x27 ||
      first === 0x7c ||
      first === 0x3e ||
      first === 0x5b ||
      first === 0x7b ||
      first === 0x2a
    ) {
      if (++values > YAML_LIMITS.maxValues) return offset;
    }
    offset += token.length;
  }
  return undefined;
}

/**
 * What each alias of a document names: the node with its anchor most recently before it, as YAML
 * defines it (`undefined` when there is none). One pass in document order, without recursion.
 */
function aliasTargets(document: Document.Parsed): Map<Alias, Node | undefined> {
  const targets = new Map<Alias, Node | undefined>();
  const anchors = new Map<string, Node>();
  const stack: unknown[] = [document.contents];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (isPair(node)) {
      stack.push(node.value, node.key);
      continue;
    }
    if (isAlias(node)) {
      targets.set(node, anchors.get(node.source));
      continue;
    }
    const anchor = (node as { anchor?: string }).anchor;
    if (anchor) anchors.set(anchor, node as Node);
    if (isMap(node) || isSeq(node)) {
      const items = (node as { items: unknown[] }).items;
      for (let k = items.length - 1; k >= 0; k--) stack.push(items[k]);
    }
  }
  return targets;
}

/**
 * Sets an own property even for `__proto__`, so no input can reach a prototype (an assignment to any other
 * name makes the same own property, enumerable and writable, as a plain object's keys are; it is faster).
 */
function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

class PlainConverter {
  private expanded = 0;
  /** set once a limit was hit: nothing more is read */
  refused = false;
  /** the alias of the source being expanded, where an alias bomb is reported */
  private expanding: Alias | undefined;
  /** the keys and indexes from the document's root to the value being converted */
  private readonly keys: (string | number)[] = [];

  constructor(
    private readonly document: Document.Parsed,
    private readonly text: string,
    private readonly file: string,
    private readonly diagnostics: Diagnostic[],
    private readonly damaged: OffsetRange[],
    private readonly aliases: ReadonlyMap<Alias, Node | undefined>,
    private readonly found: Pick<YamlSource, 'keysNotNames' | 'duplicateChoices'>,
  ) {}

  convert(node: Node, depth: number, viaAlias = false): unknown {
    if (this.refused) return null;
    if (viaAlias && ++this.expanded > YAML_LIMITS.maxAliasExpansion) {
      this.refuse(
        this.expanding ?? node,
        `aliases expand to more than ${YAML_LIMITS.maxAliasExpansion} nodes; refusing to read further`,
      );
      return null;
    }
    if (depth > YAML_LIMITS.maxDepth) {
      this.refuse(
        node,
        `nesting is deeper than ${YAML_LIMITS.maxDepth} levels; refusing to read further`,
        'start',
      );
      return null;
    }
    if (isAlias(node)) {
      const target = this.aliases.get(node);
      if (!target) {
        // Not a mistake of the playbook's structure but of its YAML: one PB100, and nothing checked there.
        const [start, end] = node.range ?? [0, 0];
        // Inside a part a syntax error damaged, the syntax error (`*all files`) says it already.
        if (!this.damaged.some((r) => start >= r.start && start < r.end)) {
          this.diagnostics.push(
            yamlDiagnostic(
              this.file,
              `"*${shown(node.source)}" is an alias, but no anchor "&${shown(node.source)}" comes before it; to write text that starts with "*", quote it`,
              start,
              end,
            ),
          );
          this.damaged.push(damageAround(this.document, this.text, start));
        }
        return null;
      }
      const outermost = this.expanding === undefined;
      if (outermost) this.expanding = node;
      try {
        return this.convert(target, depth, true);
      } finally {
        if (outermost) this.expanding = undefined;
      }
    }
    if (isScalar(node)) return scalarValue(node);
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of (node as YAMLMap).items) {
        if (!viaAlias && isScalar(pair.key) && pair.key.value === null && pair.key.source === '') {
          // `: value` — a value without a key is a slip of the YAML, not an unknown key named "null".
          const at = pair.key.range?.[0] ?? 0;
          this.diagnostics.push(
            yamlDiagnostic(this.file, 'a value without a key; write "key: value"', at, at + 1),
          );
          this.damaged.push(damageAround(this.document, this.text, at));
        }
        const key = keyName(pair.key);
        if (key === undefined) {
          if (!viaAlias) this.notAName(pair.key as Node, pair.value as Node | null);
          continue;
        }
        if (Object.prototype.hasOwnProperty.call(out, key)) {
          if (!viaAlias) this.duplicate(pair.key as Node | null, key);
          continue;
        }
        this.keys.push(key);
        defineOwn(
          out,
          key,
          pair.value == null ? null : this.convert(pair.value as Node, depth + 1, viaAlias),
        );
        this.keys.pop();
      }
      return out;
    }
    if (isSeq(node)) {
      return (node as YAMLSeq).items.map((item, index) => {
        if (item == null) return null;
        this.keys.push(index);
        const value = this.convert(item as Node, depth + 1, viaAlias);
        this.keys.pop();
        return value;
      });
    }
    if (isPair(node)) return null;
    return null;
  }

  /** The first of duplicate keys wins; the later ones are the mistake. Gate choices have their own code. */
  private duplicate(keyNode: Node | null, key: string): void {
    const range = rangeOf(keyNode);
    const [top, step, gate, choices] = this.keys;
    if (
      this.keys.length === 4 &&
      top === 'steps' &&
      step !== '' &&
      gate === 'gate' &&
      choices === 'choices'
    ) {
      this.found.duplicateChoices.push({ name: key, range });
      return;
    }
    this.diagnostics.push(
      createDiagnostic(this.file, 'PB101', range, `duplicate key "${shown(key)}"; the first one is used`),
    );
  }

  /**
   * A key that is a list, a mapping or an alias: valid YAML, but no key of a playbook is one. The pair is
   * left out of the value, and the key is reported without being written out (the yaml package's
   * `String(key)` doubles in length per level of keys nested in keys: 130 bytes took 1.4 GB).
   */
  private notAName(keyNode: Node, value: Node | null): void {
    const { start, end } = rangeOf(keyNode);
    const what = isAlias(keyNode) ? 'an alias' : isMap(keyNode) ? 'a mapping' : 'a list';
    this.found.keysNotNames.push({ range: { start, end }, what });
    // What refers to the left-out entry waits until it has a name (the checks of the whole file); the
    // damage starts after the key, so the diagnostic stays.
    this.damaged.push({ start: end, end: Math.max(end, rangeOf(value).end) });
  }

  private refuse(node: Node, message: string, at: 'node' | 'start' = 'node'): void {
    this.refused = true;
    const [start, end] = node.range ?? [0, 0];
    this.diagnostics.push(
      yamlDiagnostic(this.file, message, start, at === 'start' ? start + 1 : Math.min(end, start + 1_000)),
    );
    // What was not read cannot be checked: the whole file waits until it is within the limits.
    this.damaged.push({ start: 0, end: this.text.length });
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

/**
 * Where a diagnostic about a value without characters of its own points, as a schema's `instancePath`
 * names it: a missing key on the key of the mapping that lacks it (the step's name, say), an empty value
 * (`fix:` and nothing after it) on its key; an item of a list at its start, the root at its first key.
 */
export function requiredRange(document: Document.Parsed, pointer: string): OffsetRange {
  if (!pointer) {
    const root = document.contents as Node | null;
    if (isMap(root) && (root as YAMLMap).items.length) {
      const first = (root as YAMLMap).items[0]!;
      return rangeOf(first.key as Node);
    }
    return { start: 0, end: 0 };
  }
  const cut = pointer.lastIndexOf('/');
  const key = pointer
    .slice(cut + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  const pair = pairAtPointer(document, pointer.slice(0, cut), key);
  if (pair?.key) return rangeOf(pair.key as Node);
  const range = rangeOf(nodeAtPointer(document, pointer));
  return { start: range.start, end: range.start };
}

function resolveAlias(document: Document.Parsed, node: Node | null): Node | null {
  return node && isAlias(node) ? ((node.resolve(document) as Node | undefined) ?? null) : node;
}

/**
 * The name a mapping key stands for: a scalar's value as text (`''` for a missing key). `undefined` for a
 * key that is a collection or an alias, which `readYaml` reports (PB104) and leaves out of the value.
 */
export function keyName(key: unknown): string | undefined {
  if (key === null || key === undefined) return '';
  return isScalar(key) ? String((key as Scalar).value) : undefined;
}

export function findPair(map: YAMLMap, key: string): Pair | undefined {
  // Indexed once per mapping: a file with many unknown keys asks once per key (quadratic otherwise).
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const pair of map.items) {
      const name = keyName(pair.key);
      if (name !== undefined && !index.has(name)) index.set(name, pair as Pair);
    }
    pairIndex.set(map, index);
  }
  return index.get(key);
}

const pairIndex = new WeakMap<YAMLMap, Map<string, Pair>>();

export function rangeOf(node: Node | null | undefined): { start: number; end: number } {
  const range = node?.range;
  return range ? { start: range[0], end: range[1] } : { start: 0, end: 0 };
}
