import type { Diagnostic, Severity, SourceText } from '@kairoku-playbook/compiler';
import { printedPath, normaliseRange, sortDiagnostics, spanOf, type SourceOf } from './common.js';
import { columnsOf, layoutLine, visibleControls } from './layout.js';

export interface TextFormatOptions {
  /** ANSI colours (for a terminal) */
  color: boolean;
  /** absolute file paths inside `cwd` are printed relative to it */
  cwd?: string;
  /** how many files were checked, for the summary line; defaults to the files with diagnostics */
  fileCount?: number;
}

/** Source lines shown for a range spanning several lines; the rest is elided with `…`. */
export const MAX_FRAME_LINES = 3;

const RESET = '\x1b[0m';
const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const SEVERITY_COLOR: Record<Severity, string> = { error: '\x1b[31m', warning: '\x1b[33m', info: '\x1b[36m' };

interface Style {
  location(s: string): string;
  severity(severity: Severity, s: string): string;
  code(s: string): string;
  gutter(s: string): string;
  carets(severity: Severity, s: string): string;
  label(s: string): string;
}

const PLAIN: Style = {
  location: (s) => s,
  severity: (_severity, s) => s,
  code: (s) => s,
  gutter: (s) => s,
  carets: (_severity, s) => s,
  label: (s) => s,
};

const ANSI: Style = {
  location: (s) => `${BOLD}${s}${RESET}`,
  severity: (severity, s) => `${BOLD}${SEVERITY_COLOR[severity]}${s}${RESET}`,
  code: (s) => `${DIM}${s}${RESET}`,
  gutter: (s) => `${DIM}${s}${RESET}`,
  carets: (severity, s) => `${BOLD}${SEVERITY_COLOR[severity]}${s}${RESET}`,
  label: (s) => `${BOLD}${s}${RESET}`,
};

/**
 * The code frame under a diagnostic: each line of the range with a line-number gutter and a row
 * of `^` under the characters of the range on that line. Up to MAX_FRAME_LINES lines, then `…`.
 */
function codeFrame(source: SourceText, diagnostic: Diagnostic, style: Style): string[] {
  const { start, end } = normaliseRange(diagnostic.range, source.text.length);
  const from = source.positionAt(start);
  const to = source.positionAt(end);
  // A range that ends at the very start of a line ends, visibly, at the end of the line before.
  const lastLine = to.line > from.line && to.character === 0 ? to.line - 1 : to.line;
  const shownLast = Math.min(lastLine, from.line + MAX_FRAME_LINES - 1);
  const gutterWidth = String(shownLast + 1).length;
  const blank = ' '.repeat(gutterWidth);
  const out: string[] = [];
  for (let line = from.line; line <= shownLast; line++) {
    const text = source.lineText(line);
    const layout = layoutLine(text);
    const number = String(line + 1).padStart(gutterWidth);
    out.push(style.gutter(` ${number} |`) + (layout.rendered === '' ? '' : ` ${layout.rendered}`));
    const lineFrom = line === from.line ? Math.min(from.character, text.length) : 0;
    const lineTo = line === to.line ? Math.min(to.character, text.length) : text.length;
    // Lines inside a multi-line range with nothing of the range on them (blank lines) get no carets.
    if (line !== from.line && lineTo <= lineFrom) continue;
    const columns = columnsOf(layout, lineFrom, lineTo);
    out.push(
      style.gutter(` ${blank} |`) +
        ` ${' '.repeat(columns.start)}` +
        style.carets(diagnostic.severity, '^'.repeat(columns.end - columns.start)),
    );
  }
  if (shownLast < lastLine) out.push(style.gutter(` ${blank} |`) + ' …');
  return out;
}

function location(
  file: string,
  range: Diagnostic['range'],
  sourceOf: SourceOf,
  cwd: string | undefined,
): string {
  const span = spanOf(file, range, sourceOf);
  const shown = printedPath(file, cwd);
  return span ? `${shown}:${span.line}:${span.column}` : shown;
}

function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function summary(diagnostics: readonly Diagnostic[], fileCount: number | undefined, style: Style): string {
  const files = fileCount ?? new Set(diagnostics.map((d) => d.file)).size;
  const inFiles = fileCount === undefined && diagnostics.length === 0 ? '' : ` in ${plural(files, 'file')}`;
  if (diagnostics.length === 0) return `no problems${inFiles}`;
  const count = (severity: Severity) => diagnostics.filter((d) => d.severity === severity).length;
  const parts: string[] = [];
  const errors = count('error');
  const warnings = count('warning');
  const infos = count('info');
  if (errors) parts.push(style.severity('error', plural(errors, 'error')));
  if (warnings) parts.push(style.severity('warning', plural(warnings, 'warning')));
  if (infos) parts.push(style.severity('info', plural(infos, 'info')));
  return `${parts.join(', ')}${inFiles}`;
}

/**
 * Human-readable diagnostics: `file:line:col: severity CODE message` (1-based; the column counts
 * UTF-16 code units, as in the JSON output and the language server), a code frame, related
 * locations and the quick-fix title, then a summary line. Ends with a newline.
 */
export function formatText(
  diagnostics: Diagnostic[],
  sourceOf: SourceOf,
  options: TextFormatOptions,
): string {
  const style = options.color ? ANSI : PLAIN;
  const blocks = sortDiagnostics(diagnostics).map((diagnostic) => {
    const lines = [
      `${style.location(location(diagnostic.file, diagnostic.range, sourceOf, options.cwd))}: ` +
        `${style.severity(diagnostic.severity, diagnostic.severity)} ${style.code(diagnostic.code)} ${visibleControls(diagnostic.message)}`,
    ];
    const source = sourceOf(diagnostic.file);
    if (source) lines.push(...codeFrame(source, diagnostic, style));
    for (const related of diagnostic.related ?? []) {
      lines.push(
        `  ${style.label('related:')} ${location(related.file, related.range, sourceOf, options.cwd)}: ${visibleControls(related.message)}`,
      );
    }
    if (diagnostic.fix) lines.push(`  ${style.label('fix:')} ${visibleControls(diagnostic.fix.title)}`);
    return lines.join('\n') + '\n\n';
  });
  return blocks.join('') + summary(diagnostics, options.fileCount, style) + '\n';
}
