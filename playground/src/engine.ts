/**
 * What the page shows for one text, computed by the packages' own functions and nothing of its own:
 * the diagnostics of `validateWorkspace` printed by the CLI's JSON formatter (so they are byte for byte
 * what `kairoku-playbook check --format json` prints for a file of that name and text), the IR
 * `compile` emits, the graph the language server hands the VS Code graph view laid out by the panel's
 * layout, and `explore`'s bound. Pure: no DOM, no I/O; the page and the tests call it alike.
 */
import {
  SourceText,
  compileAnalysis,
  serializeIr,
  sortDiagnostics,
  validateWorkspace,
} from '@kairoku-playbook/compiler';
import type { Diagnostic, Ir } from '@kairoku-playbook/compiler';
import { layoutGraph } from '@kairoku-playbook/panel/layout';
import type { GraphLayout } from '@kairoku-playbook/panel/layout';
import { formatJson } from '#check-json';
import { explore, withBounds } from '@kairoku-playbook/machine';
import type { Exploration } from '@kairoku-playbook/machine';
import { playbookGraph } from '#graph';
import type { GraphLoop } from '@kairoku-playbook/protocol';

export interface Checked {
  file: string;
  text: string;
  source: SourceText;
  /** sorted as every format prints them */
  diagnostics: Diagnostic[];
  /** `check --format json`'s output for this file */
  json: string;
  /** the IR when the playbook has no errors */
  ir: Ir | undefined;
  /** `compile`'s output (the IR as JSON), or undefined with errors */
  irText: string | undefined;
  /** the step graph laid out, or undefined with errors */
  graph: GraphLayout<GraphLoop> | undefined;
}

/** Checks one file as `check --format json FILE` would, and compiles and lays it out when it can. */
export function checkText(file: string, text: string): Checked {
  const validation = validateWorkspace([{ file, text }]);
  const diagnostics = sortDiagnostics(validation.diagnostics);
  const analysis = validation.analyses.get(file);
  const source = analysis?.source ?? validation.tests.get(file)?.source ?? new SourceText(text);
  const json = formatJson(diagnostics, (name) => (name === file ? source : undefined));
  let ir: Ir | undefined;
  let graph: GraphLayout<GraphLoop> | undefined;
  if (analysis) {
    // As `compile` writes it: with the bounds of a run (machine's withBounds, the same engine).
    const compiled = compileAnalysis(analysis).ir;
    ir = compiled && withBounds(compiled);
    const answer = playbookGraph(analysis);
    if (answer.kind === 'graph')
      graph = layoutGraph({
        steps: answer.steps,
        edges: answer.edges,
        loops: answer.loops,
        after: answer.after,
      });
  }
  return { file, text, source, diagnostics, json, ir, irText: ir && serializeIr(ir), graph };
}

/** The explorer's default budget cut for a page that explores as one types (the CLI's is larger). */
export const PLAYGROUND_EXPLORE = { maxStates: 20_000, maxMillis: 1_500 } as const;

export interface Bound {
  exploration: Exploration | undefined;
  /** why there is no exploration (an error thrown by the explorer, said as it is) */
  failure: string | undefined;
}

/** `explore`'s bound of a compiled playbook, within the page's budget. */
export function boundOf(
  ir: Ir,
  budget: { maxStates: number; maxMillis: number } = PLAYGROUND_EXPLORE,
): Bound {
  try {
    return { exploration: explore(ir, budget), failure: undefined };
  } catch (error) {
    return { exploration: undefined, failure: error instanceof Error ? error.message : String(error) };
  }
}
