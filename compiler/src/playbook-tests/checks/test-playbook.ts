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

/** PB802: the playbook has errors, so the test cannot run; the test is checked again once it compiles. */
export function brokenPlaybook(
  file: string,
  range: OffsetRange,
  playbook: string,
  errors: number,
): Diagnostic {
  return createDiagnostic(
    file,
    'PB802',
    range,
    `${playbook} has ${errors} error${errors === 1 ? '' : 's'}, so this test cannot run; fix ${errors === 1 ? 'it' : 'them'} first (kairoku-playbook check ${playbook})`,
  );
}
