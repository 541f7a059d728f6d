import type { Check } from '../check-context.js';
import { checkAfterTasks } from './after-tasks.js';
import { checkCycles } from './cycles.js';
import { checkDurations } from './durations.js';
import { checkExpressions } from './expressions.js';
import { checkGateChoices } from './gate-choices.js';
import { checkInputConstraints } from './input-constraints.js';
import { checkInputDefaults } from './input-defaults.js';
import { checkKindKeys } from './kind-keys.js';
import { checkNeeds } from './needs.js';
import { checkRedundantNeeds } from './redundant-needs.js';
import { checkRoleBase } from './role-base.js';
import { checkRoles } from './roles.js';
import { checkStepKind } from './step-kind.js';
import { checkToolPolicy } from './tool-policy.js';
import { checkTransitions } from './transitions.js';
import { checkTypeExpressions } from './type-expressions.js';
import { checkUnusedInputs } from './unused-inputs.js';
import { checkUnusedOutputs } from './unused-outputs.js';

/** The per-file checks, in the order they run: later ones read what earlier ones resolved. */
export const CHECKS: readonly Check[] = [
  checkStepKind,
  checkKindKeys,
  checkNeeds,
  checkCycles,
  checkRedundantNeeds,
  checkRoles,
  checkRoleBase,
  checkToolPolicy,
  checkTypeExpressions,
  checkInputConstraints,
  checkInputDefaults,
  checkGateChoices,
  checkDurations,
  checkAfterTasks,
  checkTransitions,
  checkExpressions,
  checkUnusedInputs,
  checkUnusedOutputs,
];
