import type { Diagnostic, OffsetRange } from '../../diagnostic.js';
import { createDiagnostic } from '../../diagnostic.js';

/** PB801: no playbook beside the test (`pr.test.yml` tests `pr.yml` or `pr.yaml` in its folder). */
export function missingPlaybook(file: string, range: OffsetRange, expected: string): Diagnostic {
  return createDiagnostic(
    file,
    'PB801',
    range,
    `no playbook beside this test: expected ${expected} (a test NAME.test.yml tests NAME.yml in its folder)`,
  );
}

/**
 * PB802: the playbook has errors, so the test cannot run; the test is checked again once it compiles.
 * The hint names the check as the person would type it: `command` is how they run this CLI where the
 * diagnostic is shown (the CLI says, e.g. `npx kairoku-playbook` in a repository that installed it).
 */
export function brokenPlaybook(
  file: string,
  range: OffsetRange,
  playbook: string,
  errors: number,
  command = 'kairoku-playbook',
): Diagnostic {
  return createDiagnostic(
    file,
    'PB802',
    range,
    `${playbook} has ${errors} error${errors === 1 ? '' : 's'}, so this test cannot run; fix ${errors === 1 ? 'it' : 'them'} first (${command} check ${playbook})`,
  );
}
