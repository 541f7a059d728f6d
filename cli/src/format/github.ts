import type { Diagnostic, Severity } from '@kairoku-playbook/compiler';
import { printedPath, sortDiagnostics, spanOf, type SourceOf } from './common.js';
import { visibleControls } from './layout.js';

export interface GithubFormatOptions {
  /** absolute file paths inside `cwd` (the repository root) are reported relative to it */
  cwd?: string;
}

const COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/** Escaping of a workflow command's message. */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escaping of a workflow command's property values. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/**
 * GitHub Actions workflow commands, one annotation per line:
 * `::error file=F,line=L,col=C,endLine=EL,endColumn=EC,title=CODE::message` (`::warning`,
 * `::notice` for info). GitHub only honours columns on a single-line range, so `col`/`endColumn`
 * are left out of multi-line ones; without the file's text only `file` is given. Related locations
 * and the quick-fix title are added to the message as extra lines.
 */
export function formatGithub(
  diagnostics: Diagnostic[],
  sourceOf: SourceOf,
  options: GithubFormatOptions = {},
): string {
  return sortDiagnostics(diagnostics)
    .map((diagnostic) => {
      const properties: [string, string | number][] = [['file', printedPath(diagnostic.file, options.cwd)]];
      const span = spanOf(diagnostic.file, diagnostic.range, sourceOf);
      if (span) {
        properties.push(['line', span.line]);
        if (span.line === span.endLine) properties.push(['col', span.column]);
        properties.push(['endLine', span.endLine]);
        if (span.line === span.endLine) properties.push(['endColumn', span.endColumn]);
      }
      properties.push(['title', diagnostic.code]);
      const message = [diagnostic.message];
      for (const related of diagnostic.related ?? []) {
        const at = spanOf(related.file, related.range, sourceOf);
        const file = printedPath(related.file, options.cwd);
        message.push(`related: ${at ? `${file}:${at.line}:${at.column}` : file}: ${related.message}`);
      }
      if (diagnostic.fix) message.push(`fix: ${diagnostic.fix.title}`);
      const props = properties.map(([key, value]) => `${key}=${escapeProperty(String(value))}`).join(',');
      return `::${COMMAND[diagnostic.severity]} ${props}::${visibleControls(escapeData(message.join('\n')))}\n`;
    })
    .join('');
}
