import {
  SourceText,
  describeShapePath,
  expectedWords,
  resolveName,
  shapeProblems,
  withoutMisplacedEchoes,
  readYaml,
  shownValue,
} from '@kairoku-playbook/compiler';
import type { Ir, ShapeFormat, ShapeProblem } from '@kairoku-playbook/compiler';
import { closest } from '@kairoku-playbook/grammar';
import { describeForbidden, forbiddenKey } from '@kairoku-playbook/machine';

/**
 * A scenario scripts the `sim` backend (SPEC §8): reports per successive attempt of a step (past the
 * list the last one repeats), decisions per successive opening of a gate, and the run's inputs.
 */
export interface ScriptedReport {
  outcome?: string;
  summary?: string;
  outputs?: Record<string, unknown>;
  /** the agent ends its turn without reporting, also after its reminder: it is lost */
  silent?: boolean;
}

export interface ScriptedDecision {
  choice: string;
  comment?: string;
}

export interface Scenario {
  inputs: Record<string, unknown>;
  steps: Record<string, ScriptedReport[]>;
  gates: Record<string, ScriptedDecision[]>;
  /** after-tasks, by name */
  after: Record<string, ScriptedReport[]>;
}

export function emptyScenario(): Scenario {
  return { inputs: {}, steps: {}, gates: {}, after: {} };
}

/**
 * Reads a scenario (parsed YAML) and checks it: its shape by the compiler's rules for a scenario or a
 * playbook test (`shapeProblems`, behind PB800 too: unknown keys, values of the wrong shape), then every
 * name it uses against the playbook (`resolveName`, behind PB803–PB806); each problem is worded here with
 * where it stands (`steps.qa[0]`) and what would fit. `format` is `test` where a playbook test serves as
 * a scenario (`serve`, `mcp`, `kairoku-playbook test`): its `name` and `expect` are allowed, and what lies
 * in `expect` is `readExpectation`'s.
 */
export function readScenario(
  value: unknown,
  ir: Ir,
  format: ShapeFormat = 'scenario',
): { scenario: Scenario; errors: string[] } {
  const scenario = emptyScenario();
  // (an empty file is null: nothing scripted)
  if (value === null || value === undefined) return { scenario, errors: [] };
  const { errors, readable } = shapeErrorsOf(value, format, ir);
  if (!readable || !isObject(value)) return { scenario, errors };
  if (isObject(value.inputs)) scenario.inputs = { ...value.inputs };
  for (const section of ['steps', 'after'] as const) {
    const entries = value[section];
    if (isObject(entries)) readReports(section, entries, ir, scenario[section], errors);
  }
  if (isObject(value.gates)) readDecisions(value.gates, ir, scenario.gates, errors);
  return { scenario, errors };
}

/**
 * The scripted reports of the steps (or after-tasks) a section names, each checked against its owner. The
 * names are checked by the compiler's rules for a test's names (`resolveName`, also behind PB803–PB806),
 * worded here with where they stand (`steps.qa[0]`). What has the wrong shape has its problem already.
 */
function readReports(
  section: 'steps' | 'after',
  entries: Record<string, unknown>,
  ir: Ir,
  target: Record<string, ScriptedReport[]>,
  errors: string[],
): void {
  const after = section === 'after';
  const what = after ? 'after-task' : 'step';
  for (const [name, list] of Object.entries(entries)) {
    const where = `${section}.${name}`;
    const problem = resolveName({ kind: 'step', name, after, scripted: true }, ir);
    if (problem?.problem === 'unknown-step') {
      errors.push(`${where}: ${unknownName(what, name, problem.declared)}`);
      continue;
    }
    if (problem?.problem === 'gate-under-steps') {
      errors.push(`${where}: "${name}" is a gate; script its decisions under gates`);
      continue;
    }
    const owner = { name, after, what: `${what} "${name}"` };
    target[name] = asList(list).map((item, i) => readReport(item, `${where}[${i}]`, owner, ir, errors));
  }
}

function readReport(
  item: unknown,
  at: string,
  owner: { name: string; after: boolean; what: string },
  ir: Ir,
  errors: string[],
): ScriptedReport {
  if (!isObject(item)) return {};
  const report: ScriptedReport = {};
  if (typeof item.outcome === 'string') {
    const problem = resolveName(
      { kind: 'outcome', name: item.outcome, step: owner.name, after: owner.after },
      ir,
    );
    if (problem?.problem === 'unknown-outcome')
      errors.push(
        `${at}: ${owner.what} has no outcome ${JSON.stringify(item.outcome)}; its outcomes are ${outcomesOf(ir, owner).join(', ')}`,
      );
    else report.outcome = item.outcome;
  }
  if (typeof item.summary === 'string') report.summary = item.summary;
  if (isObject(item.outputs)) report.outputs = { ...item.outputs };
  if (item.silent === true) report.silent = true;
  return report;
}

/** The scripted decisions of each gate, checked against its choices by the same rules (`resolveName`). */
function readDecisions(
  gates: Record<string, unknown>,
  ir: Ir,
  target: Record<string, ScriptedDecision[]>,
  errors: string[],
): void {
  for (const [name, list] of Object.entries(gates)) {
    const where = `gates.${name}`;
    const problem = resolveName({ kind: 'gate', name }, ir);
    if (problem) {
      errors.push(
        `${where}: ${problem.problem === 'unknown-gate' ? unknownName('gate', name, problem.declared) : `step "${name}" is not a gate; script its reports under steps`}`,
      );
      continue;
    }
    const choices = outcomesOf(ir, { name, after: false });
    target[name] = asList(list).map((item, i) => {
      if (!isObject(item) || typeof item.choice !== 'string') return { choice: '' };
      if (resolveName({ kind: 'choice', name: item.choice, gate: name }, ir))
        errors.push(
          `${where}[${i}]: gate "${name}" has no choice "${item.choice}"; its choices are ${choices.join(', ')}`,
        );
      const decision: ScriptedDecision = { choice: item.choice };
      if (typeof item.comment === 'string') decision.comment = item.comment;
      return decision;
    });
  }
}

/**
 * What is wrong with a scenario's shape whatever playbook it scripts (serve takes one for all its runs):
 * the problems `readScenario` says first, worded the same. `expect` is allowed (a playbook test serves).
 */
export function scenarioShapeErrors(value: unknown): string[] {
  return value === null || value === undefined ? [] : shapeErrorsOf(value, 'test').errors;
}

/**
 * The shape problems of a scenario or test, worded (a test's `expect` is `readExpectation`'s); with its
 * playbook's IR, without those that only echo a misplaced name. Not `readable` when a key is forbidden
 * (`__proto__` and the like): nothing of it is read then.
 */
function shapeErrorsOf(
  value: unknown,
  format: ShapeFormat,
  ir?: Ir,
): { errors: string[]; readable: boolean } {
  const forbidden = forbiddenKey(value);
  if (forbidden) return { errors: [describeForbidden(forbidden)], readable: false };
  const problems = shapeProblems(value, format).filter(
    (p) => format === 'scenario' || p.path[0] !== 'expect',
  );
  const shown = ir ? withoutMisplacedEchoes(problems, ir) : problems;
  const whole = format === 'scenario' ? 'a scenario' : 'a playbook test';
  return { errors: shown.map((p) => wordShapeProblem(p, whole)), readable: true };
}

/**
 * A problem with the shape of a scenario or playbook test, as the CLI and the manager protocol say it:
 * where (`steps.qa[0]`), then what is wrong. `whole` names the value when the problem is about all of it.
 */
export function wordShapeProblem(problem: ShapeProblem, whole = 'a scenario'): string {
  const where = describeShapePath(problem.path);
  const at = where ? `${where}: ` : '';
  switch (problem.problem) {
    case 'unknown-key':
      return `${at}unknown key "${problem.key}"${problem.suggestion ? `; did you mean "${problem.suggestion}"?` : ''} (expected ${problem.allowed.join(', ')})`;
    case 'missing-key':
      return `${at}missing the required key "${problem.key}"`;
    case 'bad-key':
      return `${at}key "${problem.key}" must be ${expectedWords(problem)}`;
    default:
      return `${where || whole}: must be ${expectedWords(problem)}, not ${shownValue(problem.value)}`;
  }
}

/** The outcomes (a gate's choices) of a step or after-task the rules have found. */
function outcomesOf(ir: Ir, unit: { name: string; after: boolean }): string[] {
  const found = (unit.after ? ir.after : ir.steps).find((s) => s.name === unit.name);
  return found ? found.outcomes.map((o) => o.name) : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function unknownName(what: string, name: string, names: string[]): string {
  const suggestion = closest(name, names);
  return `unknown ${what} "${name}"${suggestion ? `; did you mean "${suggestion}"?` : names.length ? ` (the playbook has ${names.join(', ')})` : ''}`;
}

/**
 * Reads the YAML of a scenario, a playbook test or an inputs file as `check` reads a playbook's
 * (`readYaml`: the same refusals of hostile input, duplicate keys an error, an empty file null); its first
 * error says where.
 */
export function parseYaml(text: string): { value: unknown } | { error: string } {
  const read = readYaml('', text);
  const error = read.diagnostics.find((d) => d.severity === 'error');
  if (!error) return { value: read.value ?? null };
  const { line, character } = new SourceText(text).positionAt(error.range.start);
  return { error: `line ${line + 1}, column ${character + 1}: ${error.message}` };
}
