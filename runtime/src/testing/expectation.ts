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
 * playbook test (`shapeProblems`, behind PB800 too), then the steps and after-tasks it names
 * (`resolveName`, behind PB803); each problem is worded with where it stands (`expect.steps.qa`).
 */
export function readExpectation(value: unknown, ir: Ir): { expect: Expectation; errors: string[] } {
  const expect: Expectation = { steps: {}, after: {} };
  if (value === undefined) return { expect, errors: [] };
  const problems = shapeProblems({ expect: value }, 'test');
  const errors = problems.map((p) => wordShapeProblem(p, 'expect'));
  if (!isObject(value)) return { expect, errors };
  for (const section of ['steps', 'after'] as const) {
    const entries = value[section];
    if (!isObject(entries)) continue;
    for (const [name, spec] of Object.entries(entries)) {
      // (the compiler's rules for a test's names, behind PB803 too)
      const problem = resolveName({ kind: 'step', name, after: section === 'after', scripted: false }, ir);
      if (problem?.problem === 'unknown-step') {
        errors.push(
          `expect.${section}.${name}: unknown ${section === 'steps' ? 'step' : 'after-task'} "${name}"${hint(name, problem.declared)}`,
        );
        continue;
      }
      if (isObject(spec)) expect[section][name] = spec as StepExpectation;
    }
  }
  // (what does not fit its shape is not compared: the test does not run)
  if (problems.length) return { expect, errors };
  if (value.status !== undefined) expect.status = value.status as RunStatus;
  if (value.loops !== undefined) expect.loops = value.loops as Record<string, number>;
  if (value.outputs !== undefined) expect.outputs = value.outputs as Record<string, unknown>;
  return { expect, errors };
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
