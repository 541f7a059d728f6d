/** Types of generate.mjs, for the tests that import it. */

/** A large, valid playbook of `steps` steps (at least 4), the same for the same (steps, seed): its YAML text. */
export function generatePlaybook(steps: number, seed?: number): string;
