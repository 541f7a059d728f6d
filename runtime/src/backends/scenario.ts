import { resolveName } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { closest } from '@kairoku-playbook/grammar';
import { parse } from 'yaml';
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

const SCENARIO_KEYS = ['inputs', 'steps', 'gates', 'after'];
const REPORT_KEYS = ['outcome', 'summary', 'outputs', 'silent'];
const DECISION_KEYS = ['choice', 'comment'];

/**
 * Reads a scenario (parsed YAML) and checks it against the playbook: unknown keys, steps, gates,
 * outcomes and choices are errors that say where (`steps.qa[0]`) and what would fit.
 * `extraKeys` are top-level keys another format adds (a playbook test's `expect` and `name`).
 */
export function readScenario(
  value: unknown,
  ir: Ir,
  extraKeys: readonly string[] = [],
): { scenario: Scenario; errors: string[] } {
  const errors: string[] = [];
  const scenario = emptyScenario();
  if (value === null || value === undefined) return { scenario, errors };
  if (!isObject(value))
    return { scenario, errors: ['a scenario is a mapping with inputs, steps, gates, after'] };
  const forbidden = forbiddenKey(value);
  if (forbidden) return { scenario, errors: [describeForbidden(forbidden)] };
  checkKeys(value, [...SCENARIO_KEYS, ...extraKeys], '', errors);
  if (value.inputs !== undefined) {
    if (isObject(value.inputs)) scenario.inputs = { ...value.inputs };
    else errors.push('inputs: must be a mapping of input names to values');
  }
  for (const section of ['steps', 'after'] as const) {
    const entries = value[section];
    if (entries === undefined || entries === null) continue;
    if (!isObject(entries)) errors.push(`${section}: must be a mapping of names to reports`);
    else readReports(section, entries, ir, scenario[section], errors);
  }
  if (value.gates !== undefined && value.gates !== null) {
    if (!isObject(value.gates)) errors.push('gates: must be a mapping of gate names to decisions');
    else readDecisions(value.gates, ir, scenario.gates, errors);
  }
  return { scenario, errors };
}

/**
 * The scripted reports of the steps (or after-tasks) a section names, each checked against its owner. The
 * names are checked by the compiler's rules for a test's names (`resolveName`, also behind PB803–PB806),
 * worded here with where they stand (`steps.qa[0]`).
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
  if (!isObject(item)) {
    errors.push(
      `${at}: a report is a mapping like { outcome: ${outcomesOf(ir, owner)[0]}, summary: …, outputs: … }`,
    );
    return {};
  }
  checkKeys(item, REPORT_KEYS, at, errors);
  const report: ScriptedReport = {};
  if (item.outcome !== undefined) {
    const outcome = typeof item.outcome === 'string' ? item.outcome : '';
    const problem = resolveName({ kind: 'outcome', name: outcome, step: owner.name, after: owner.after }, ir);
    if (typeof item.outcome !== 'string' || problem?.problem === 'unknown-outcome')
      errors.push(
        `${at}: ${owner.what} has no outcome ${JSON.stringify(item.outcome)}; its outcomes are ${outcomesOf(ir, owner).join(', ')}`,
      );
    else report.outcome = item.outcome;
  }
  if (item.summary !== undefined) report.summary = String(item.summary);
  if (item.outputs !== undefined) {
    if (isObject(item.outputs)) report.outputs = { ...item.outputs };
    else errors.push(`${at}.outputs: must be a mapping of output names to values`);
  }
  if (item.silent !== undefined) report.silent = item.silent === true;
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
      const at = `${where}[${i}]`;
      if (!isObject(item) || typeof item.choice !== 'string') {
        errors.push(`${at}: a decision is a mapping like { choice: ${choices[0]}, comment: … }`);
        return { choice: '' };
      }
      checkKeys(item, DECISION_KEYS, at, errors);
      if (resolveName({ kind: 'choice', name: item.choice, gate: name }, ir))
        errors.push(
          `${at}: gate "${name}" has no choice "${item.choice}"; its choices are ${choices.join(', ')}`,
        );
      const decision: ScriptedDecision = { choice: item.choice };
      if (item.comment !== undefined && item.comment !== null) decision.comment = String(item.comment);
      return decision;
    });
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

function checkKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
  errors: string[],
): void {
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const suggestion = closest(key, allowed);
    errors.push(
      `${where ? `${where}: ` : ''}unknown key "${key}"${suggestion ? `; did you mean "${suggestion}"?` : ''} (expected ${allowed.join(', ')})`,
    );
  }
}

function unknownName(what: string, name: string, names: string[]): string {
  const suggestion = closest(name, names);
  return `unknown ${what} "${name}"${suggestion ? `; did you mean "${suggestion}"?` : names.length ? ` (the playbook has ${names.join(', ')})` : ''}`;
}

/** Parses the YAML of a scenario or a playbook test; a syntax error says where. */
export function parseYaml(text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text, { prettyErrors: true, uniqueKeys: true }) as unknown };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0]! };
  }
}
