import type { Ir } from '@kairoku-playbook/compiler';
import { readScenario } from '../backends/scenario.js';
import { recordTransition, summarize } from '@kairoku-playbook/machine';
import type { CoverageHits, RunSummary } from '@kairoku-playbook/machine';
import { runSim } from './sim-run.js';
import { compareExpectation, readExpectation } from './expectation.js';

export interface PlaybookTestResult {
  /** the test's `name:`, if it has one */
  name: string | undefined;
  passed: boolean;
  /** problems with the test file itself (unknown steps, outcomes, keys), or inputs that do not fit */
  errors: string[];
  /** expected vs got, one line each */
  differences: string[];
  summary: RunSummary | undefined;
}

/**
 * Runs one playbook test (SPEC §8): a scenario plus `expect:`, on the sim backend, without asking
 * anything, and compares. Deterministic: a fixed clock and run id. With `coverage`, what the run covers
 * (`recordTransition`, from each accepted transition) is counted into it.
 */
export function runPlaybookTest(
  ir: Ir,
  test: unknown,
  options: { coverage?: CoverageHits } = {},
): PlaybookTestResult {
  const record = (test ?? {}) as Record<string, unknown>;
  const name = typeof record.name === 'string' ? record.name : undefined;
  const { scenario, errors } = readScenario(test, ir, 'test');
  const { expect, errors: expectErrors } = readExpectation(record.expect, ir);
  errors.push(...expectErrors);
  if (errors.length) return { name, passed: false, errors, differences: [], summary: undefined };
  const hits = options.coverage;
  const result = runSim({
    ir,
    scenario,
    id: `${ir.id}-test`,
    clock: () => Date.UTC(2025, 0, 1),
    ...(hits
      ? {
          onTransition: (before, after, event, effects) =>
            recordTransition(hits, before, after, event, effects),
        }
      : {}),
  });
  if (!result.ok)
    return { name, passed: false, errors: result.inputErrors, differences: [], summary: undefined };
  const summary = summarize(result.state);
  const differences = compareExpectation(summary, expect);
  for (const refusal of result.refusals)
    differences.push(`the run refused ${refusal.event.type}: ${refusal.error}`);
  if (!expect.status && summary.status !== 'completed' && summary.status !== 'failed')
    differences.push(`status: the run stopped ${summary.status}, not ended`);
  return { name, passed: differences.length === 0, errors: [], differences, summary };
}
