import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { parseDuration } from '../ir/duration.js';
import type { TextRef } from '../model/model.js';
import { schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';
import { rangeOf } from '../yaml/read-yaml.js';

/**
 * The longest duration a playbook may give (366 days). The runtime turns a timeout into a deadline date,
 * and past about 270,000 years there is no such date: `99999999999999999999d` crashed the run at start.
 */
export const MAX_DURATION_MS = 366 * 86_400_000;

/**
 * PB603: a duration longer than `MAX_DURATION_MS`. (A duration that is not a number with a unit is found
 * by the surface schema: `durationFromSchema`.)
 */
export const checkDurations: Check = (context) => {
  const { model } = context;
  const check = (text: TextRef | undefined) => {
    if (!text) return;
    const ms = parseDuration(text.value);
    if (ms === undefined || ms <= MAX_DURATION_MS) return;
    context.report(
      'PB603',
      rangeOf(text.node),
      `invalid duration ${JSON.stringify(shown(text.value))}: longer than 366 days, the longest a playbook may wait`,
    );
  };
  check(model.limits.timeout);
  check(model.limits.stepTimeout);
  for (const step of [...model.steps, ...model.after]) check(step.timeout);
};

/** PB603 from the surface schema: a duration that is not text, or not a number with a unit. */
export function durationFromSchema(problem: SchemaProblem): Diagnostic {
  if (problem.kind === 'value' && (problem.keyword === 'type' || problem.keyword === 'pattern'))
    return createDiagnostic(
      problem.file,
      'PB603',
      problem.range,
      `invalid duration ${problem.written}: write a number with a unit, such as 90s, 30m, 1h30m or 2d`,
    );
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB603', problem.range, message, { fix });
}
