import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  compilePlaybook,
  sortDiagnostics,
  toJsonDiagnostic,
  validateWorkspace,
} from '@kairoku-playbook/compiler';
import type { Diagnostic, SourceText } from '@kairoku-playbook/compiler';
import { explore, exploreDiagnostics } from '@kairoku-playbook/machine';

export const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

/** Fixture files of a folder, by name; a sub-folder is one workspace fixture (for PB110). */
export function fixtureNames(folder: 'ok' | 'err'): string[] {
  return readdirSync(join(FIXTURES, folder))
    .filter((name) => /\.ya?ml$/.test(name) || !name.includes('.'))
    .sort();
}

/** Validates one fixture (a file, or a folder of files as one workspace) with paths relative to the repo. */
export function validateFixture(
  folder: 'ok' | 'err',
  name: string,
): { diagnostics: Diagnostic[]; sources: Map<string, SourceText> } {
  const path = join(FIXTURES, folder, name);
  const names = /\.ya?ml$/.test(name)
    ? [name]
    : readdirSync(path)
        .filter((n) => /\.ya?ml$/.test(n))
        .sort()
        .map((n) => `${name}/${n}`);
  const files = names.map((n) => ({
    file: `test/fixtures/${folder}/${n}`,
    text: readFileSync(join(FIXTURES, folder, n), 'utf8'),
  }));
  const validation = validateWorkspace(files);
  const sources = new Map<string, SourceText>();
  for (const [file, analysis] of validation.analyses) sources.set(file, analysis.source);
  for (const [file, analysis] of validation.tests) sources.set(file, analysis.source);
  return { diagnostics: sortDiagnostics([...validation.diagnostics, ...budgeted(files)]), sources };
}

/**
 * A fixture whose first line is `# check --max-agent-turns N` is checked as `check` with that option
 * checks it: explored, with PB312 over N (the explorer's codes are not the compiler's).
 */
function budgeted(files: readonly { file: string; text: string }[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  for (const { file, text } of files) {
    const option = /^# check --max-agent-turns (\d+)\n/.exec(text);
    const { ir } = option ? compilePlaybook(file, text) : {};
    if (!option || !ir) continue;
    found.push(...exploreDiagnostics(explore(ir), { file, text }, { maxAgentTurns: Number(option[1]) }));
  }
  return found;
}

/**
 * One line per diagnostic: `FILE:LINE:COL-ENDLINE:ENDCOL severity CODE message` (1-based, UTF-16 columns),
 * then one indented line per related location: `  related FILE:LINE:COL-ENDLINE:ENDCOL message`.
 */
export function describeDiagnostics(diagnostics: Diagnostic[], sources: Map<string, SourceText>): string {
  const base = (file: string) => file.slice(file.lastIndexOf('/') + 1);
  return diagnostics
    .map((d) => {
      const j = toJsonDiagnostic(d, (f) => sources.get(f));
      const lines = [
        `${base(j.file)}:${j.line}:${j.column}-${j.endLine}:${j.endColumn} ${j.severity} ${j.code} ${j.message}`,
      ];
      for (const r of j.related ?? [])
        lines.push(
          `  related ${base(r.file)}:${r.line}:${r.column}-${r.endLine}:${r.endColumn} ${r.message}`,
        );
      return lines.join('\n');
    })
    .join('\n');
}
