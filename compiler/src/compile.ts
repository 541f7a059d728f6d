import { isMap } from 'yaml';
import { CheckContext } from './check-context.js';
import { CHECKS } from './checks/index.js';
import type { Diagnostic } from './diagnostic.js';
import { buildGraph } from './graph/graph.js';
import { buildModel } from './model/build-model.js';
import type { PlaybookModel } from './model/model.js';
import { validateSurface } from './schema/validate-surface.js';
import { SourceText } from './source-text.js';
import { applySuppressions } from './suppressions.js';
import { readYaml } from './yaml/read-yaml.js';

/** One file's analysis: its diagnostics and, when it could be read, the model and check context. */
export interface FileAnalysis {
  file: string;
  text: string;
  source: SourceText;
  diagnostics: Diagnostic[];
  model: PlaybookModel | undefined;
  context: CheckContext | undefined;
}

/** Reads, schema-checks and checks one playbook. Pure: the text comes in, nothing is read or written. */
export function analyzeFile(file: string, text: string): FileAnalysis {
  const source = new SourceText(text);
  const analysis: FileAnalysis = {
    file,
    text,
    source,
    diagnostics: [],
    model: undefined,
    context: undefined,
  };
  const yaml = readYaml(file, text);
  const diagnostics = [...yaml.diagnostics];
  const document = yaml.document;
  if (!document || document.contents === null || document.contents === undefined) {
    if (!diagnostics.some((d) => d.severity === 'error')) {
      diagnostics.push({
        file,
        range: { start: 0, end: 0 },
        severity: 'error',
        code: 'PB103',
        message: 'empty playbook: it needs at least version, title and steps',
      });
    }
    analysis.diagnostics = finish(file, text, diagnostics, source);
    return analysis;
  }
  diagnostics.push(...validateSurface(file, document, yaml.value));
  if (isMap(document.contents)) {
    const model = buildModel(file, document);
    const context = new CheckContext(file, text, model);
    context.graph = buildGraph(model.steps, model.stepByName);
    for (const check of CHECKS) check(context);
    diagnostics.push(...context.diagnostics);
    analysis.model = model;
    analysis.context = context;
  }
  analysis.diagnostics = finish(file, text, diagnostics, source);
  return analysis;
}

function finish(file: string, text: string, diagnostics: Diagnostic[], source: SourceText): Diagnostic[] {
  return sortDiagnostics(applySuppressions(file, text, diagnostics, source));
}

export function sortDiagnostics(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics.sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.range.start - b.range.start ||
      a.range.end - b.range.end ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}
