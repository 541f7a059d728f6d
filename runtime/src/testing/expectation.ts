import { resolveName, shapeProblems } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { closest } from '@kairoku-playbook/grammar';
import { equal } from '@kairoku-playbook/machine';
import type { RunStatus, RunSummary, StepStatus, StepSummary } from '@kairoku-playbook/machine';
import { wordShapeProblem } from '../backends/scenario.js';

/**
 * The `expect:` block of a playbook test (SPEC §8): the run's status, per step its attempts (a count,
 * or the list of outcomes) and status, loop counters and the playbook's outputs. Only what is named
 * is compared.
 */
export interface StepExpectation {
  attempts?: number | (string | null)[];
  status?: StepStatus;
}

export interface Expectation {
  status?: RunStatus;
  steps: Record<string, StepExpectation>;
  after: Record<string, StepExpectation>;
  loops?: Record<string, number>;
  outputs?: Record<string, unknown>;
}

/**
 * Reads the `expect:` block of a playbook test and checks it: its shape by the compiler's rules for a
 * playbook test (`shapeProblems`, behind PB800 too), then the steps, after-tasks and outcomes it names
 * (`resolveName`, behind PB803 and PB805), in `steps`, `after`, their attempts' outcomes and the loop
 * counters; each problem is worded with where it stands (`expect.steps.qa`). With a problem, nothing
 * is compared (the test does not run).
 */
export function readExpectation(value: unknown, ir: Ir): { expect: Expectation; errors: string[] } {
  const expect: Expectation = { steps: {}, after: {} };
  if (value === undefined) return { expect, errors: [] };
  const errors = shapeProblems({ expect: value }, 'test').map((p) => wordShapeProblem(p, 'expect'));
  if (!isObject(value)) return { expect, errors };
  checkNames(value, ir, errors);
  if (errors.length) return { expect, errors };
  // (its shape is the schema's, so these are what they say)
  const fits = value as {
    status?: RunStatus;
    steps?: Record<string, StepExpectation>;
    after?: Record<string, StepExpectation>;
    loops?: Record<string, number>;
    outputs?: Record<string, unknown>;
  };
  expect.steps = { ...fits.steps };
  expect.after = { ...fits.after };
  if (fits.status !== undefined) expect.status = fits.status;
  if (fits.loops !== undefined) expect.loops = fits.loops;
  if (fits.outputs !== undefined) expect.outputs = fits.outputs;
  return { expect, errors };
}

/** The names `expect` uses, by the compiler's rules for a test's names (PB803, PB805). */
function checkNames(value: Record<string, unknown>, ir: Ir, errors: string[]): void {
  for (const section of ['steps', 'after'] as const) {
    const entries = value[section];
    if (!isObject(entries)) continue;
    const after = section === 'after';
    for (const [name, spec] of Object.entries(entries)) {
      const where = `expect.${section}.${name}`;
      if (!knownStep(name, after, where, ir, errors)) continue;
      const attempts = isObject(spec) ? spec.attempts : undefined;
      if (Array.isArray(attempts))
        attempts.forEach((outcome, i) => {
          if (typeof outcome === 'string')
            checkOutcome(outcome, name, after, `${where}.attempts[${i}]`, ir, errors);
        });
    }
  }
  if (!isObject(value.loops)) return;
  for (const counter of Object.keys(value.loops)) {
    const dot = counter.indexOf('.');
    if (dot <= 0) continue; // (not STEP.OUTCOME: its shape's problem)
    const step = counter.slice(0, dot);
    const where = `expect.loops.${counter}`;
    if (knownStep(step, false, where, ir, errors))
      checkOutcome(counter.slice(dot + 1), step, false, where, ir, errors);
  }
}

function knownStep(name: string, after: boolean, where: string, ir: Ir, errors: string[]): boolean {
  const problem = resolveName({ kind: 'step', name, after, scripted: false }, ir);
  if (problem?.problem !== 'unknown-step') return true;
  errors.push(`${where}: unknown ${after ? 'after-task' : 'step'} "${name}"${hint(name, problem.declared)}`);
  return false;
}

function checkOutcome(
  name: string,
  step: string,
  after: boolean,
  where: string,
  ir: Ir,
  errors: string[],
): void {
  const problem = resolveName({ kind: 'outcome', name, step, after }, ir);
  if (problem?.problem !== 'unknown-outcome') return;
  const gate = problem.owner.kind === 'gate';
  const what = after ? 'after-task' : gate ? 'gate' : 'step';
  const arm = gate ? 'choice' : 'outcome';
  const hinted = hint(name, problem.declared) || `; its ${arm}s are ${problem.declared.join(', ')}`;
  errors.push(`${where}: ${what} "${step}" has no ${arm} "${name}"${hinted}`);
}

/** The differences between what a test expects and what the run did, one line each; none when it passes. */
export function compareExpectation(summary: RunSummary, expect: Expectation): string[] {
  const differences: string[] = [];
  if (expect.status !== undefined && summary.status !== expect.status)
    differences.push(
      `status: expected ${expect.status}, got ${summary.status}${summary.reason ? ` (${summary.reason})` : ''}`,
    );
  for (const section of ['steps', 'after'] as const) {
    for (const [name, want] of Object.entries(expect[section])) {
      const got: StepSummary | undefined = summary[section]?.[name];
      const where = section === 'steps' ? `steps.${name}` : `after.${name}`;
      if (!got) {
        differences.push(`${where}: not in the run`);
        continue;
      }
      if (want.status !== undefined && want.status !== got.status)
        differences.push(`${where}.status: expected ${want.status}, got ${got.status}`);
      if (typeof want.attempts === 'number' && want.attempts !== got.attempts.length)
        differences.push(
          `${where}.attempts: expected ${want.attempts}, got ${got.attempts.length} ${outcomes(got)}`,
        );
      if (Array.isArray(want.attempts)) {
        const actual = got.attempts.map((a) => a.outcome);
        if (!equal(actual, want.attempts))
          differences.push(`${where}.attempts: expected [${want.attempts.join(', ')}], got ${outcomes(got)}`);
      }
    }
  }
  for (const [counter, count] of Object.entries(expect.loops ?? {})) {
    const got = summary.loops?.[counter] ?? 0;
    if (got !== count) differences.push(`loops.${counter}: expected ${count}, got ${got}`);
  }
  for (const [name, value] of Object.entries(expect.outputs ?? {})) {
    const got = summary.outputs?.[name];
    if (!equal(got ?? null, value))
      differences.push(
        `outputs.${name}: expected ${JSON.stringify(value)}, got ${JSON.stringify(got ?? null)}`,
      );
  }
  return differences;
}

function outcomes(step: StepSummary): string {
  return `[${step.attempts.map((a) => a.outcome ?? `(${a.ended ?? 'no outcome'})`).join(', ')}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hint(name: string, names: string[]): string {
  const suggestion = closest(name, names);
  return suggestion ? `; did you mean "${suggestion}"?` : '';
}
