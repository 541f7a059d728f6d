import type { Check } from '../check-context.js';
import type { Diagnostic } from '../diagnostic.js';
import type { SchemaProblem, SurfaceCode } from '../schema/validate-surface.js';
import { afterTaskFromSchema, checkAfterTasks } from './after-tasks.js';
import { checkApprovalDominance } from './approval-dominance.js';
import { checkCycles } from './cycles.js';
import { checkDurations, durationFromSchema } from './durations.js';
import { checkExpressionSyntax } from './expression-syntax.js';
import { checkFunctions } from './functions.js';
import { checkGateChoices } from './gate-choices.js';
import { checkInputDefaults } from './input-defaults.js';
import { limitFromSchema } from './limits.js';
import { checkLoopScope } from './loop-scope.js';
import { checkLoops, loopMaxFromSchema } from './loops.js';
import { checkMissingKeys, missingKeyFromSchema } from './missing-keys.js';
import { nameFromSchema } from './names.js';
import { checkNeeds } from './needs.js';
import { checkPatternBacktracking } from './pattern-backtracking.js';
import { checkRedundantNeeds } from './redundant-needs.js';
import { checkRoleBase } from './role-base.js';
import { checkRoles } from './roles.js';
import { checkSecrets } from './secrets.js';
import { checkShapes, shapeFromSchema } from './shapes.js';
import { checkStepKind } from './step-kind.js';
import { checkStepVisibility } from './step-visibility.js';
import { checkToolPolicy, unknownToolFromSchema } from './tool-policy.js';
import { checkTransitions, transitionFromSchema } from './transitions.js';
import { checkTypeExpressions } from './type-expressions.js';
import { checkTypeMismatches } from './type-mismatches.js';
import { checkUnknownInputs } from './unknown-inputs.js';
import { checkUnknownKeys, unknownKeyFromSchema } from './unknown-keys.js';
import { checkUnknownNames } from './unknown-names.js';
import { checkUnknownOutcomes } from './unknown-outcomes.js';
import { checkUnknownOutputs } from './unknown-outputs.js';
import { checkUnknownSteps } from './unknown-steps.js';
import { checkUnusedInputs } from './unused-inputs.js';
import { checkUnusedOutputs } from './unused-outputs.js';
import { versionFromSchema } from './version.js';
import { checkWhenConditions } from './when-conditions.js';

/**
 * The per-file checks. Each only reads the semantic model and reports its own codes, so their order does
 * not matter (compiler/test/check-order.test.ts runs them in other orders); they are listed by code.
 */
export const CHECKS: readonly Check[] = [
  checkUnknownKeys, // PB102
  checkMissingKeys, // PB103
  checkShapes, // PB104
  checkStepKind, // PB107
  checkPatternBacktracking, // PB108
  checkNeeds, // PB200, PB208
  checkRoles, // PB201
  checkUnknownInputs, // PB202
  checkUnknownSteps, // PB203
  checkUnknownOutputs, // PB204
  checkStepVisibility, // PB205
  checkUnknownOutcomes, // PB206
  checkLoops, // PB207, PB301
  checkUnknownNames, // PB209
  checkLoopScope, // PB210
  checkCycles, // PB300
  checkExpressionSyntax, // PB400, PB406
  checkTypeMismatches, // PB401
  checkFunctions, // PB402
  checkTypeExpressions, // PB403
  checkInputDefaults, // PB404
  checkWhenConditions, // PB405
  checkSecrets, // PB407
  checkRoleBase, // PB500
  checkToolPolicy, // PB502, PB504
  checkGateChoices, // PB600
  checkAfterTasks, // PB602
  checkDurations, // PB603
  checkTransitions, // PB605
  checkApprovalDominance, // PB700
  checkUnusedInputs, // PB900
  checkUnusedOutputs, // PB901
  checkRedundantNeeds, // PB902
];

/** Who turns the surface schema's problems of each code into diagnostics: the check that owns the code. */
const SCHEMA_PRODUCERS: Record<SurfaceCode, (problem: SchemaProblem) => Diagnostic> = {
  PB102: unknownKeyFromSchema,
  PB103: missingKeyFromSchema,
  PB104: shapeFromSchema,
  PB105: nameFromSchema,
  PB106: versionFromSchema,
  PB302: loopMaxFromSchema,
  PB501: unknownToolFromSchema,
  PB602: afterTaskFromSchema,
  PB603: durationFromSchema,
  PB604: limitFromSchema,
  PB605: transitionFromSchema,
};

/** The surface schema's problems as diagnostics. */
export function surfaceDiagnostics(problems: readonly SchemaProblem[]): Diagnostic[] {
  return problems.map((problem) => SCHEMA_PRODUCERS[problem.code](problem));
}
