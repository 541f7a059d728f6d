import type { Check, CheckContext } from '../check-context.js';
import { createDiagnostic, shown } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import type { TextRef } from '../model/model.js';
import { BASE_POLICY, baseOf } from '../policy/base-policy.js';
import { unknownKeyMessage, schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';
import { rangeOf } from '../yaml/read-yaml.js';
import { commandPatternProblem } from './command-patterns.js';

/**
 * PB502 a policy that grants more than its base allows; PB504 an invalid command pattern. (A tool that
 * is not one, PB501, is found by the surface schema: `unknownToolFromSchema`.)
 */
export const checkToolPolicy: Check = (context) => {
  for (const role of context.model.roles.values()) {
    if (!role.tools) continue;
    const base = baseOf(role);
    if (!base) continue;
    const allowed = BASE_POLICY[base];
    for (const tool of ['read', 'edit', 'write', 'network'] as const) {
      const granted = role.tools[tool];
      if (granted?.value === true && !allowed[tool]) {
        context.report(
          'PB502',
          granted.range,
          `role "${shown(role.name)}" grants "${shown(tool)}", which its base "${shown(base)}" does not allow`,
        );
      }
    }
    for (const tool of ['run', 'mcp'] as const) {
      const granted = role.tools[tool];
      if (!granted) continue;
      const grants = granted.value === true || (Array.isArray(granted.value) && granted.value.length > 0);
      if (grants && !allowed[tool]) {
        context.report(
          'PB502',
          granted.range,
          `role "${shown(role.name)}" grants "${shown(tool)}", which its base "${shown(base)}" does not allow`,
        );
      }
      if (tool === 'run' && Array.isArray(granted.value))
        for (const pattern of granted.value) checkPattern(context, pattern);
    }
  }
};

/** PB501 from the surface schema: a tool a policy names that is not one. */
export function unknownToolFromSchema(problem: SchemaProblem): Diagnostic {
  const { message, fix } =
    problem.kind === 'unknown-key' ? unknownKeyMessage(problem, 'tool') : schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB501', problem.range, message, { fix });
}

/**
 * A command pattern is a command line in which `*` matches any run of characters; it must name a
 * command (not start with `*` or be empty), and carry no shell operators that would let one
 * allowed command chain another.
 */
function checkPattern(context: CheckContext, pattern: TextRef): void {
  const value = pattern.value;
  const problem = commandPatternProblem(value);
  if (!problem) return;
  const at = problem.at ?? 0;
  const length = problem.length ?? value.length;
  // An empty pattern has no characters to point at: point at its quotes.
  const range = value === '' ? rangeOf(pattern.node) : context.rangeIn(pattern, at, at + Math.max(length, 1));
  context.report('PB504', range, `invalid command pattern "${shown(value)}": ${problem.message}`);
}
