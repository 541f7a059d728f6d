import type { Diagnostic, OffsetRange } from '../../diagnostic.js';
import { createDiagnostic } from '../../diagnostic.js';

/**
 * PB801: no playbook beside the test (`pr.test.yml` tests `pr.yml` or `pr.yaml` in its folder; a named
 * test `pr.reject.test.yml` tests `pr.reject.yml`, else `pr.yml`). `expected`: the `.yml` names, in order.
 */
export function missingPlaybook(file: string, range: OffsetRange, expected: readonly string[]): Diagnostic {
  const named = expected.length > 1 ? ', and a test NAME.LABEL.test.yml tests NAME.yml too' : '';
  return createDiagnostic(
    file,
    'PB801',
    range,
    `no playbook beside this test: expected ${expected.join(' or ')} (a test NAME.test.yml tests NAME.yml in its folder${named})`,
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
