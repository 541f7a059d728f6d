import { createDiagnostic } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';

/** PB106: a `version` this toolchain does not read (the surface schema finds it). */
export function versionFromSchema(problem: SchemaProblem): Diagnostic {
  if (problem.kind === 'value' && problem.keyword === 'const')
    return createDiagnostic(
      problem.file,
      'PB106',
      problem.range,
      `unsupported version ${problem.written}: this toolchain reads version 1`,
    );
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB106', problem.range, message, { fix });
}
