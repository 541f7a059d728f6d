/**
 * The step graph of a playbook, for a graph view (the VS Code extension's, through the server's
 * `kairoku-playbook/graph` request): the compiler's IR of the document's current text reduced to what a
 * view draws (steps with their rows, needs, loops, after-tasks, labels written back as source), or, while
 * the playbook has errors, their count and the first of them. The IR is emitted from the analysis the
 * diagnostics come from (`compileAnalysis`, what the CLI's `compile` and `graph` run after analysing), so
 * the view never disagrees with `kairoku-playbook check` or with the Problems panel.
 */
import { compileAnalysis } from '@kairoku-playbook/compiler';
import type { FileAnalysis, Ir, IrTransition } from '@kairoku-playbook/compiler';
import { expressionText, templateText } from '../language/template-text.js';
import { LISTED_PROBLEMS } from '@kairoku-playbook/protocol';
import type {
  GraphLoop,
  GraphOutcome,
  GraphProblem,
  GraphStep,
  PlaybookGraph,
  PlaybookProblems,
} from '@kairoku-playbook/protocol';

const answers = new WeakMap<FileAnalysis, PlaybookGraph | PlaybookProblems>();

/** The graph of an analysed playbook (compiled once per analysis, so once per text). */
export function playbookGraph(analysis: FileAnalysis): PlaybookGraph | PlaybookProblems {
  let answer = answers.get(analysis);
  if (!answer) answers.set(analysis, (answer = graphOf(analysis)));
  return answer;
}

function graphOf(analysis: FileAnalysis): PlaybookGraph | PlaybookProblems {
  const { file, source } = analysis;
  // (the analysis the diagnostics come from: emitted, not analysed again)
  const { diagnostics, ir } = compileAnalysis(analysis);
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  if (ir) return graphOfIr(ir, file, warnings);
  const problems = diagnostics
    .filter((d) => d.severity === 'error')
    .concat(diagnostics.filter((d) => d.severity !== 'error'))
    .slice(0, LISTED_PROBLEMS)
    .map((d): GraphProblem => {
      const at = source.positionAt(d.range.start);
      return {
        line: at.line + 1,
        column: at.character + 1,
        severity: d.severity,
        code: d.code,
        message: d.message,
      };
    });
  // No IR without an error; a playbook the compiler could not emit counts one at least.
  return { kind: 'problems', file, errors: Math.max(errors, 1), warnings, problems };
}

function outcomeOf(name: string, t: IrTransition): GraphOutcome {
  return t.kind === 'loop'
    ? { name, transition: 'loop', target: t.target, max: t.max, exhausted: t.exhausted }
    : { name, transition: t.kind };
}

function graphOfIr(ir: Ir, file: string, warnings: number): PlaybookGraph {
  const steps = ir.steps.map((step): GraphStep => ({
    index: step.index,
    name: step.name,
    kind: step.kind,
    title: step.title ? templateText(step.title) : null,
    role: step.role,
    when: step.when ? expressionText(step.when.expr) : null,
    needs: [...step.needs],
    outcomes: step.outcomes.map((o) => outcomeOf(o.name, o.transition)),
    row: step.layout.row,
    column: step.layout.column,
    line: step.at[0],
    character: step.at[1],
  }));
  const loops: GraphLoop[] = [];
  for (const step of ir.steps)
    for (const outcome of step.outcomes) {
      const t = outcome.transition;
      if (t.kind === 'loop')
        loops.push({
          from: step.index,
          to: t.target,
          outcome: outcome.name,
          max: t.max,
          exhausted: t.exhausted,
        });
    }
  return {
    kind: 'graph',
    file,
    id: ir.id,
    title: ir.title,
    warnings,
    rows: ir.steps.reduce((rows, s) => Math.max(rows, s.layout.row + 1), 0),
    steps,
    edges: ir.steps.flatMap((step) => step.needs.map((need) => ({ from: need, to: step.index }))),
    loops,
    after: ir.after.map((task) => ({
      name: task.name,
      kind: task.kind,
      role: task.role,
      trigger: task.trigger,
      on: [...task.on],
      line: task.at[0],
      character: task.at[1],
    })),
  };
}
