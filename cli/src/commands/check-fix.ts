import { SourceText, validateWorkspace } from '@kairoku-playbook/compiler';
import type { Diagnostic, TextEdit, WorkspaceFile } from '@kairoku-playbook/compiler';

/** One quick fix applied: where its diagnostic was (in the text the pass read), and what it did. */
export interface AppliedFix {
  file: string;
  line: number;
  column: number;
  code: string;
  title: string;
}

export interface FixResult {
  /** the workspace's files, fixed */
  files: WorkspaceFile[];
  /** the files whose text changed: their text before the first fix */
  changed: Map<string, string>;
  applied: AppliedFix[];
  /** fixes not applied because they would add a diagnostic (`added` says the first) */
  skipped: (AppliedFix & { added: string })[];
}

/**
 * More passes than any real file needs: a pass only applies fixes that do not overlap, so a fix that
 * overlapped one applied before waits for the next pass, on the diagnostics of the fixed text.
 */
const MAX_PASSES = 10;

/** What a diagnostic says, wherever it is (a fix moves the characters after it). */
const saying = (d: Diagnostic) => `${d.file}\u0000${d.code}\u0000${d.message}`;

/**
 * `check --fix`: applies the quick fixes the compiler attaches to diagnostics (the editor's "Replace
 * with …": did-you-mean names of steps, outputs, inputs, roles, outcomes, functions and keys), again
 * on the fixed text until none is left, so a second `--fix` finds nothing more to do. Only safe ones:
 * a fix is kept when the workspace then says nothing it did not say before (renaming `titel:` to
 * `title:` beside a `title:` would add a duplicate key: that fix is skipped, and said). A file with a
 * YAML syntax error (PB100) is never changed: its tree, and so every fix's place, is a guess. Pure:
 * the caller writes the files.
 */
export function applyQuickFixes(files: readonly WorkspaceFile[]): FixResult {
  let current = [...files];
  const changed = new Map<string, string>();
  const applied: AppliedFix[] = [];
  const skipped: FixResult['skipped'] = [];
  const refused = new Set<string>();
  const keyOf = (d: Diagnostic) => `${d.file}\u0000${JSON.stringify(d.fix!.edits)}`;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const { diagnostics } = validateWorkspace(current);
    const said = new Set(diagnostics.map(saying));
    const unsafe = new Set(diagnostics.filter((d) => d.code === 'PB100').map((d) => d.file));
    const byFile = new Map<string, Diagnostic[]>();
    for (const diagnostic of diagnostics) {
      if (!diagnostic.fix?.edits.length || unsafe.has(diagnostic.file) || refused.has(keyOf(diagnostic)))
        continue;
      byFile.set(diagnostic.file, [...(byFile.get(diagnostic.file) ?? []), diagnostic]);
    }
    /** the first thing the workspace would say, with `text` as the file's, that it does not say now */
    const added = (file: string, text: string): Diagnostic | undefined =>
      validateWorkspace(current.map((f) => (f.file === file ? { file, text } : f))).diagnostics.find(
        (d) => !said.has(saying(d)),
      );
    let progress = false;
    for (const [file, fixable] of byFile) {
      const index = current.findIndex((f) => f.file === file);
      const before = current[index]!.text;
      const source = new SourceText(before);
      const where = (d: Diagnostic): AppliedFix => {
        const { line, character } = source.positionAt(d.range.start);
        return { file, line: line + 1, column: character + 1, code: d.code, title: d.fix!.title };
      };
      const all = applyEdits(before, fixable);
      let text = before;
      let used: Diagnostic[] = [];
      if (all.text !== before && added(file, all.text) === undefined) ({ text, used } = all);
      else {
        // one at a time, each on the text the fixes kept so far left (their edits do not overlap, so
        // each one's place is found again by the length the kept ones before it changed)
        for (const diagnostic of all.used) {
          const one = applyEdits(before, [...used, diagnostic]);
          const worse = added(file, one.text);
          if (worse === undefined) {
            text = one.text;
            used = one.used;
          } else {
            refused.add(keyOf(diagnostic));
            skipped.push({ ...where(diagnostic), added: `${worse.code} ${worse.message}` });
          }
        }
      }
      if (text === before) continue;
      applied.push(...used.map(where));
      if (!changed.has(file)) changed.set(file, before);
      current = current.map((f, i) => (i === index ? { file, text } : f));
      progress = true;
    }
    if (!progress) break;
  }
  return { files: current, changed, applied, skipped };
}

/** The text with each diagnostic's edits applied, skipping a fix whose edits overlap one taken before. */
function applyEdits(text: string, diagnostics: readonly Diagnostic[]): { text: string; used: Diagnostic[] } {
  const taken: TextEdit[] = [];
  const used: Diagnostic[] = [];
  const sorted = [...diagnostics].sort((a, b) => a.range.start - b.range.start);
  for (const diagnostic of sorted) {
    const edits = diagnostic.fix!.edits;
    const same = (edit: TextEdit, other: TextEdit) =>
      edit.range.start === other.range.start &&
      edit.range.end === other.range.end &&
      edit.newText === other.newText;
    // The same fix reported twice (one name, two diagnostics) is applied once.
    if (edits.every((edit) => taken.some((other) => same(edit, other)))) continue;
    const overlaps = edits.some((edit) =>
      taken.some((other) => edit.range.start < other.range.end && other.range.start < edit.range.end),
    );
    if (overlaps) continue;
    taken.push(...edits);
    used.push(diagnostic);
  }
  let result = text;
  for (const edit of [...taken].sort((a, b) => b.range.start - a.range.start))
    result = result.slice(0, edit.range.start) + edit.newText + result.slice(edit.range.end);
  return { text: result, used };
}

/**
 * A unified diff of one file's lines (what `--fix --dry-run` shows): the changed lines with up to two
 * lines of context around them. Quick fixes replace words on a line, so lines are matched by number
 * when the counts agree, and by their longest common subsequence otherwise.
 */
export function lineDiff(file: string, before: string, after: string): string {
  // (the empty "line" after a file's last newline is no line)
  const lines = (text: string) => (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  const a = lines(before);
  const b = lines(after);
  const ops = diffLines(a, b);
  const out = [`--- ${file}`, `+++ ${file} (fixed)`];
  const CONTEXT = 2;
  const changes = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  // hunks: changes joined when at most 2 × CONTEXT unchanged lines lie between them
  const hunks: [number, number][] = [];
  for (const index of changes) {
    const last = hunks.at(-1);
    if (last && index - last[1] <= 2 * CONTEXT + 1) last[1] = index;
    else hunks.push([index, index]);
  }
  for (const [first, last] of hunks) {
    const lines = ops.slice(Math.max(0, first - CONTEXT), Math.min(ops.length, last + CONTEXT + 1));
    const oldCount = lines.filter((op) => op.kind !== '+').length;
    const newCount = lines.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${lines[0]!.oldLine + 1},${oldCount} +${lines[0]!.newLine + 1},${newCount} @@`);
    for (const op of lines) out.push(`${op.kind}${op.text}`);
  }
  return `${out.join('\n')}\n`;
}

interface LineOp {
  kind: ' ' | '-' | '+';
  text: string;
  oldLine: number;
  newLine: number;
}

function diffLines(a: readonly string[], b: readonly string[]): LineOp[] {
  const ops: LineOp[] = [];
  if (a.length === b.length) {
    // a run of changed lines shows its old lines, then its new ones
    for (let i = 0; i < a.length;) {
      if (a[i] === b[i]) {
        ops.push({ kind: ' ', text: a[i]!, oldLine: i, newLine: i });
        i++;
        continue;
      }
      let end = i;
      while (end < a.length && a[end] !== b[end]) end++;
      for (let k = i; k < end; k++) ops.push({ kind: '-', text: a[k]!, oldLine: k, newLine: i });
      for (let k = i; k < end; k++) ops.push({ kind: '+', text: b[k]!, oldLine: end, newLine: k });
      i = end;
    }
    return ops;
  }
  // the longest common subsequence, by dynamic programming (playbooks are at most a few thousand lines)
  const lengths: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] =
        a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j])
      ops.push({ kind: ' ', text: a[i++]!, oldLine: i - 1, newLine: j++ });
    else if (j < b.length && (i === a.length || lengths[i]![j + 1]! >= lengths[i + 1]![j]!))
      ops.push({ kind: '+', text: b[j++]!, oldLine: i, newLine: j - 1 });
    else ops.push({ kind: '-', text: a[i++]!, oldLine: i - 1, newLine: j });
  }
  return ops;
}
