import { createHash } from 'node:crypto';
import { analyzeFile } from './compile.js';
import type { FileAnalysis } from './compile.js';
import type { Diagnostic } from './diagnostic.js';
import { emitIr } from './ir/emit.js';
import type { Ir } from './ir/ir.js';

export interface Compilation {
  diagnostics: Diagnostic[];
  /** present when the playbook has no errors */
  ir: Ir | undefined;
}

/** Checks one playbook and, when it has no errors, emits its IR. */
export function compilePlaybook(file: string, text: string): Compilation {
  return compileAnalysis(analyzeFile(file, text));
}

/**
 * The IR of a playbook already analysed (`analyzeFile`, or an incremental analysis after an edit), when
 * it has no errors: what `compilePlaybook` gives for the same text, without analysing it again.
 */
export function compileAnalysis(analysis: FileAnalysis): Compilation {
  const hasErrors = analysis.diagnostics.some((d) => d.severity === 'error');
  if (hasErrors || !analysis.semantic) return { diagnostics: analysis.diagnostics, ir: undefined };
  const sha256 = createHash('sha256').update(analysis.text).digest('hex');
  return { diagnostics: analysis.diagnostics, ir: emitIr(analysis.semantic, analysis.source, sha256) };
}

/** The IR as bytes: stable key order (as emitted), two-space indent, a final newline. */
export function serializeIr(ir: Ir): string {
  return `${JSON.stringify(ir, null, 2)}\n`;
}
