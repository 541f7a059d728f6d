import type { Check } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import type { StepKind } from '../model/model.js';
import { quoteLast, schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';

/** Keys that only one or two kinds of step read; elsewhere they would be silently ignored. */
const KIND_KEYS = new Map<string, { kinds: readonly StepKind[]; who: string }>([
  ['role', { kinds: ['agent'], who: 'only agent steps (prompt) run in a role' }],
  ['provider', { kinds: ['agent'], who: 'only agent steps (prompt) take a provider' }],
  ['model', { kinds: ['agent'], who: 'only agent steps (prompt) take a model' }],
  [
    'outputs',
    {
      kinds: ['agent'],
      who: 'only agent steps (prompt) declare outputs; a check step has passed, failed, skipped, todo and exit_code',
    },
  ],
  ['env', { kinds: ['check'], who: 'only check steps (run) take env' }],
  ['cwd', { kinds: ['check'], who: 'only check steps (run) take cwd' }],
  ['outcomes', { kinds: ['agent', 'check'], who: 'a gate takes its outcomes from gate.choices' }],
]);

const KIND_NAMES: Record<StepKind, string> = { agent: 'agent step', check: 'check step', gate: 'gate' };

/**
 * PB102: a key that does not apply to the step's kind (`env` on an agent step, `role` on a check step, …).
 * Keys the surface schema does not know at all are found by it (`unknownKeyFromSchema`).
 */
export const checkUnknownKeys: Check = (context) => {
  for (const step of [...context.model.steps, ...context.model.after]) {
    // A step without exactly one kind is PB107; what applies to it is not known yet.
    if (!step.kind) continue;
    for (const key of step.keys) {
      const rule = KIND_KEYS.get(key.name);
      if (!rule || rule.kinds.includes(step.kind)) continue;
      const what = `${step.isAfter ? 'after-task' : KIND_NAMES[step.kind]} "${shown(step.name)}"`;
      context.report('PB102', key.range, `"${shown(key.name)}" does not apply to ${what}: ${rule.who}`);
    }
  }
};

/** PB102 from the surface schema: a key it does not allow there (a YAML merge key among them). */
export function unknownKeyFromSchema(problem: SchemaProblem): Diagnostic {
  if (problem.kind === 'unknown-key' && problem.key === 'gate' && /^\/after\/[^/]+$/.test(problem.pointer))
    return createDiagnostic(
      problem.file,
      'PB102',
      problem.range,
      `after-task ${quoteLast(problem.pointer)} cannot be a gate: after-tasks are agent steps (prompt) or check steps (run)`,
    );
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB102', problem.range, message, { fix });
}
