import { createDiagnostic } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { schemaMessage } from '../schema/validate-surface.js';
import type { SchemaProblem } from '../schema/validate-surface.js';

/** PB604: a limit (`concurrency`, `max_loops`, `retries`) out of its range (the surface schema finds it). */
export function limitFromSchema(problem: SchemaProblem): Diagnostic {
  const { message, fix } = schemaMessage(problem);
  return createDiagnostic(problem.file, 'PB604', problem.range, message, { fix });
}
