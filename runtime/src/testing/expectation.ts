import { STEP_STATUSES, resolveName } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { closest } from '@kairoku-playbook/grammar';
import { equal } from '@kairoku-playbook/machine';
import type { RunStatus, RunSummary, StepStatus, StepSummary } from '@kairoku-playbook/machine';

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

const RUN_STATUSES = ['running', 'paused', 'completed', 'failed', 'canceled'];

export function readExpectation(value: unknown, ir: Ir): { expect: Expectation; errors: string[] } {
  const errors: string[] = [];
  const expect: Expectation = { steps: {}, after: {} };
  if (value === undefined || value === null) return { expect, errors };
  if (!isObject(value))
    return { expect, errors: ['expect: must be a mapping with status, steps, after, loops, outputs'] };
  for (const key of Object.keys(value))
    if (!['status', 'steps', 'after', 'loops', 'outputs'].includes(key))
      errors.push(
        `expect: unknown key "${key}"${hint(key, ['status', 'steps', 'after', 'loops', 'outputs'])}`,
      );
  if (value.status !== undefined) {
    if (typeof value.status === 'string' && RUN_STATUSES.includes(value.status))
      expect.status = value.status as RunStatus;
    else errors.push(`expect.status: must be one of ${RUN_STATUSES.join(', ')}`);
  }
  for (const section of ['steps', 'after'] as const) {
    const entries = value[section];
    if (entries === undefined || entries === null) continue;
    if (!isObject(entries)) {
      errors.push(`expect.${section}: must be a mapping of names`);
      continue;
    }
    for (const [name, spec] of Object.entries(entries)) {
      const where = `expect.${section}.${name}`;
      // (the compiler's rules for a test's names, behind PB803 too)
      const problem = resolveName({ kind: 'step', name, after: section === 'after', scripted: false }, ir);
      if (problem?.problem === 'unknown-step') {
        errors.push(
          `${where}: unknown ${section === 'steps' ? 'step' : 'after-task'} "${name}"${hint(name, problem.declared)}`,
        );
        continue;
      }
      if (!isObject(spec)) {
        errors.push(`${where}: must be a mapping like { attempts: 2 } or { attempts: [fail, pass] }`);
        continue;
      }
      const step: StepExpectation = {};
      for (const key of Object.keys(spec))
        if (key !== 'attempts' && key !== 'status')
          errors.push(`${where}: unknown key "${key}"${hint(key, ['attempts', 'status'])}`);
      const attempts = spec.attempts;
      if (typeof attempts === 'number' && Number.isInteger(attempts) && attempts >= 0)
        step.attempts = attempts;
      else if (Array.isArray(attempts) && attempts.every((a) => typeof a === 'string' || a === null))
        step.attempts = attempts as (string | null)[];
      else if (attempts !== undefined)
        errors.push(`${where}.attempts: must be a count or a list of outcomes`);
      if (spec.status !== undefined) {
        if (typeof spec.status === 'string' && (STEP_STATUSES as readonly string[]).includes(spec.status))
          step.status = spec.status as StepStatus;
        else errors.push(`${where}.status: must be one of ${STEP_STATUSES.join(', ')}`);
      }
      expect[section][name] = step;
    }
  }
  if (value.loops !== undefined) {
    if (isObject(value.loops) && Object.values(value.loops).every((v) => typeof v === 'number'))
      expect.loops = value.loops as Record<string, number>;
    else errors.push('expect.loops: must be a mapping of STEP.OUTCOME to counts');
  }
  if (value.outputs !== undefined) {
    if (isObject(value.outputs)) expect.outputs = value.outputs;
    else errors.push('expect.outputs: must be a mapping of output names to values');
  }
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
