import { closest } from '@kairoku-playbook/grammar';
import type { NameRef, RoleDecl, StepDecl } from '../model/model.js';

/** The keys a step or an after-task may carry (the surface schema's). */
const STEP_KEYS = [
  'title',
  'when',
  'outputs',
  'outcomes',
  'timeout',
  'retries',
  'labels',
  'role',
  'provider',
  'model',
  'prompt',
  'run',
  'env',
  'cwd',
  'needs',
  'gate',
];
const AFTER_KEYS = [...STEP_KEYS.filter((k) => k !== 'needs' && k !== 'gate'), 'trigger', 'on'];

/**
 * Whether the step carries an unknown key that the schema check (PB102) suggests is one of `wanted`, or a
 * merge key: then a missing `role` or a missing kind is that same mistake, and is not reported again.
 */
export function hasMisspeltKey(step: StepDecl, wanted: readonly string[]): boolean {
  return misspelt(step.keys, step.isAfter ? AFTER_KEYS : STEP_KEYS, wanted);
}

/** The keys a role may carry (the surface schema's). */
const ROLE_KEYS = ['base', 'instructions', 'provider', 'model', 'mode', 'tools'];

/** `hasMisspeltKey` for a role: `bas: reviewer` is PB102 with "did you mean "base"?", so base is not missing. */
export function hasMisspeltRoleKey(role: RoleDecl, wanted: readonly string[]): boolean {
  return misspelt(role.keys, ROLE_KEYS, wanted);
}

function misspelt(keys: readonly NameRef[], known: readonly string[], wanted: readonly string[]): boolean {
  return keys.some((key) => {
    if (known.includes(key.name)) return false;
    // A YAML merge key (`<<: *defaults`, not supported) may have been meant to bring any key.
    if (key.name === '<<') return true;
    const suggestion = closest(key.name, known);
    return suggestion !== undefined && wanted.includes(suggestion);
  });
}
