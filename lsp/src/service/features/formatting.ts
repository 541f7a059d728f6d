/**
 * Formatting a playbook (`textDocument/formatting`, `textDocument/rangeFormatting`, and the CLI's
 * `format`): Prettier's YAML printer, the one this repository formats its YAML with, rather than a printer
 * of our own. Pure: the Prettier options come in (the server and the CLI resolve the project's Prettier
 * config from the file's folder), the text or the edits go out.
 *
 * What it promises:
 * - a file with a YAML syntax error (PB100) is never touched: the refusal says where the error is;
 * - comments stay (Prettier's printer keeps them), and so do a byte order mark and the file's line
 *   endings (CRLF stays CRLF and CR stays CR unless the Prettier config names an `endOfLine`);
 * - the meaning never changes: the YAML value of the formatted text is compared with the original's, and
 *   in a text with a `# playbook-ignore` comment (which means something on its line) so are the codes
 *   of its diagnostics;
 *   a difference is a refusal, not a rewrite;
 * - the same result in every editor and in CI: the editor's tab size is not used (the project's Prettier
 *   config, else Prettier's defaults, decide), so `format --check` agrees with what the editor wrote.
 */
import { parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import type * as PrettierStandalone from 'prettier/standalone';
import type * as PrettierYaml from 'prettier/plugins/yaml';
import { analyzeFile } from '@kairoku-playbook/compiler';
import type { Diagnostic, FileAnalysis } from '@kairoku-playbook/compiler';
import type { OffsetEdit } from '../language/types.js';

/** Prettier options as a config file gives them (`resolveConfig`'s answer); null: no config found. */
export type PrettierOptions = Record<string, unknown>;

export type Formatted = { text: string } | { refused: string };

/** Options a config may hold that make no sense here (the parser and plugins are ours to choose). */
const NOT_PASSED = new Set([
  'parser',
  'plugins',
  'filepath',
  'overrides',
  '$schema',
  'rangeStart',
  'rangeEnd',
]);

/** The text of an analysed playbook, formatted; or why it is not. */
export async function formatPlaybook(
  analysis: FileAnalysis,
  options: PrettierOptions | null = null,
): Promise<Formatted> {
  const syntaxError = analysis.diagnostics.find((d) => d.code === 'PB100');
  if (syntaxError) {
    const { line, character } = analysis.source.positionAt(syntaxError.range.start);
    return {
      refused: `not formatted: line ${line + 1}, column ${character + 1} has a YAML error (${syntaxError.message}); fix it first`,
    };
  }
  const result = await formatYaml(analysis.text, options);
  if ('refused' in result) return result;
  // The YAML value is the same (formatYaml checked it); what a comment means is the checker's: a
  // `# playbook-ignore` comment moved off the line it silences changes the diagnostics. Without one, the
  // checker reads the value alone (its suppressions are skipped the same way), so the formatted text is
  // analysed again only when the text has such a comment.
  if (!analysis.text.includes('playbook-ignore')) return result;
  const before = codesOf(analysis.diagnostics);
  const after = codesOf(analyzeFile(analysis.file, result.text).diagnostics);
  if (before !== after)
    return {
      refused: `not formatted: the formatted file would get other diagnostics (${before || 'none'} → ${after || 'none'}), most likely as a "# playbook-ignore" comment would leave the line it silences; put that comment on a line of its own, or "# prettier-ignore" the value it follows`,
    };
  return result;
}

/** The codes of diagnostics, sorted: what formatting must keep (messages may name lines, which move). */
function codesOf(diagnostics: readonly Diagnostic[]): string {
  return diagnostics
    .map((d) => d.code)
    .sort()
    .join(', ');
}

type Printer = { format: typeof PrettierStandalone.format; yaml: typeof PrettierYaml };
let printer: Promise<Printer> | undefined;

/**
 * Prettier's printer and its YAML plugin, loaded when first needed (a check never pays for them) and once:
 * the language server calls this when idle, so a person's first Format Document does not wait for the load
 * (seconds on a loaded machine: a save pressed meanwhile writes the unformatted text).
 */
export function loadPrinter(): Promise<Printer> {
  printer ??= Promise.all([import('prettier/standalone'), import('prettier/plugins/yaml')]).then(
    ([{ format }, yaml]) => ({ format, yaml }),
    (error: unknown) => {
      printer = undefined;
      throw error;
    },
  );
  return printer;
}

/** YAML text formatted with Prettier (a text with no syntax error: `formatPlaybook` checks that first). */
export async function formatYaml(text: string, options: PrettierOptions | null = null): Promise<Formatted> {
  const byteOrderMark = text.startsWith('\ufeff');
  const written = byteOrderMark ? text.slice(1) : text;
  const ending = lineEnding(written);
  // YAML breaks lines at a lone CR too, the parser and Prettier only at LF and CRLF: a CR-only file is
  // read and formatted with LF (same offsets, as the compiler reads it) and written back with CR.
  const body = ending === 'cr' ? written.replace(/\r(?!\n)/g, '\n') : written;
  // (parsed once: the syntax check, then the value the formatted text is compared with)
  const documents = yamlDocuments(body);
  const syntaxError = firstYamlError(body, documents);
  if (syntaxError) return { refused: syntaxError };
  const passed: PrettierOptions = {};
  for (const [name, value] of Object.entries(options ?? {})) if (!NOT_PASSED.has(name)) passed[name] = value;
  const { format, yaml } = await loadPrinter();
  let formatted: string;
  try {
    formatted = await format(body, {
      endOfLine: ending,
      ...passed,
      parser: 'yaml',
      plugins: [yaml],
    });
  } catch (error) {
    return { refused: `not formatted: Prettier could not format it (${firstLine(error)})` };
  }
  const after = valuesOf(yamlDocuments(ending === 'cr' ? formatted.replace(/\r(?!\n)/g, '\n') : formatted));
  if (after === undefined || !deepEqual(valuesOf(documents), after))
    return {
      refused:
        'not formatted: Prettier would change what this file means (a bug worth reporting); it is left as it is',
    };
  return { text: byteOrderMark ? `\ufeff${formatted}` : formatted };
}

/** The file's line endings, as its first line break has them. */
function lineEnding(text: string): 'lf' | 'crlf' | 'cr' {
  const at = text.search(/[\r\n]/);
  if (at < 0 || text[at] === '\n') return 'lf';
  return text[at + 1] === '\n' ? 'crlf' : 'cr';
}

type YamlDocuments = Document.Parsed[];

/** The documents of a YAML text (errors unadorned: a refusal says the first line of one). */
function yamlDocuments(text: string): YamlDocuments {
  const documents = parseAllDocuments(text, { uniqueKeys: false, prettyErrors: false });
  return Array.isArray(documents) ? documents : [documents];
}

/** A YAML syntax error of the text, said as a refusal; undefined when it reads. */
function firstYamlError(text: string, documents: YamlDocuments): string | undefined {
  for (const document of documents) {
    const error = document.errors[0];
    if (!error) continue;
    const before = text.slice(0, error.pos[0]);
    const line = before.split('\n').length;
    const column = error.pos[0] - (before.lastIndexOf('\n') + 1) + 1;
    return `not formatted: line ${line}, column ${column} has a YAML error (${firstLine(error)}); fix it first`;
  }
  return undefined;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
}

/** Whether two YAML texts hold the same values, document for document (comments and layout aside). */
export function sameMeaning(before: string, after: string): boolean {
  const a = valuesOf(yamlDocuments(before));
  const b = valuesOf(yamlDocuments(after));
  return a !== undefined && b !== undefined && deepEqual(a, b);
}

/** The values of YAML documents; undefined when one has an error. */
function valuesOf(documents: YamlDocuments): unknown[] | undefined {
  if (documents.some((d) => d.errors.length)) return undefined;
  return documents.map((d) => d.toJS({ maxAliasCount: -1 }) as unknown);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Map || b instanceof Map || a instanceof Set || b instanceof Set) {
    if (!(a instanceof Map || a instanceof Set) || a.constructor !== b.constructor) return false;
    return deepEqual([...(a as Map<unknown, unknown>)], [...(b as Map<unknown, unknown>)]);
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return (
      a instanceof Uint8Array &&
      b instanceof Uint8Array &&
      a.length === b.length &&
      a.every((x, i) => x === b[i])
    );
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * The edits that turn `before` into `after`, a hunk of whole lines each (so the editor keeps the cursor
 * and the folds of the lines that did not change); with `lines`, only the hunks that touch those lines
 * (0-based, both ends included): range formatting.
 */
export function formattingEdits(
  before: string,
  after: string,
  lines?: { first: number; last: number },
): OffsetEdit[] {
  if (before === after) return [];
  const a = splitLines(before);
  const b = splitLines(after);
  const starts = [0];
  for (const line of a) starts.push(starts[starts.length - 1]! + line.length);
  // A stretch that changes line for line is as many edits: range formatting takes the lines it touches.
  const hunks = diffLines(a, b).flatMap((hunk) =>
    hunk.aEnd - hunk.aStart === hunk.bEnd - hunk.bStart
      ? Array.from({ length: hunk.aEnd - hunk.aStart }, (_, k) => ({
          aStart: hunk.aStart + k,
          aEnd: hunk.aStart + k + 1,
          bStart: hunk.bStart + k,
          bEnd: hunk.bStart + k + 1,
        }))
      : [hunk],
  );
  const edits: OffsetEdit[] = [];
  for (const hunk of hunks) {
    if (lines) {
      // a hunk that only inserts touches the line it goes before
      const last = Math.max(hunk.aStart, hunk.aEnd - 1);
      if (last < lines.first || hunk.aStart > lines.last) continue;
    }
    edits.push({
      range: { start: starts[hunk.aStart]!, end: starts[hunk.aEnd]! },
      newText: b.slice(hunk.bStart, hunk.bEnd).join(''),
    });
  }
  return edits;
}

/** Lines with their line breaks (the last one may have none). */
function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

interface Hunk {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/** Above this many cells (lines × lines of what changed) the changed middle is one hunk. */
const MAX_DIFF_CELLS = 4_000_000;

/** The changed stretches between two lists of lines: common ends cut, then a longest common subsequence. */
function diffLines(a: readonly string[], b: readonly string[]): Hunk[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0 || n * m > MAX_DIFF_CELLS)
    return [{ aStart: head, aEnd: head + n, bStart: head, bEnd: head + m }];
  // lengths of the longest common subsequences of the suffixes, row by row
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[i * width + j] =
        a[head + i] === b[head + j]
          ? table[(i + 1) * width + j + 1]! + 1
          : Math.max(table[(i + 1) * width + j]!, table[i * width + j + 1]!);
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let open: Hunk | undefined;
  const close = () => {
    if (open) hunks.push(open);
    open = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] === b[head + j]) {
      close();
      i++;
      j++;
      continue;
    }
    open ??= { aStart: head + i, aEnd: head + i, bStart: head + j, bEnd: head + j };
    if (j < m && (i === n || table[i * width + j + 1]! >= table[(i + 1) * width + j]!))
      open.bEnd = head + ++j;
    else open.aEnd = head + ++i;
  }
  close();
  return hunks;
}
