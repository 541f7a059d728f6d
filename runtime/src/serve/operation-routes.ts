import { operationSpecs } from '../host/operations.js';
import type { OperationSpec } from '../host/operations.js';
import { REQUEST_SCHEMAS } from './schemas.js';

/**
 * The operation a POST under `/api/v1/runs/ID/` names: `segments` are the path after the run's id,
 * matched against each operation's route (`:name` segments read as parameters). Undefined when none
 * matches.
 */
export function routeOperation(
  segments: readonly string[],
): { spec: OperationSpec; params: Record<string, string> } | undefined {
  for (const spec of operationSpecs()) {
    const pattern = spec.route.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      if (part.startsWith(':')) {
        params[part.slice(1)] = segments[i]!;
        return true;
      }
      return part === segments[i];
    });
    if (!matches) continue;
    if (!(spec.body in REQUEST_SCHEMAS))
      throw new Error(`operation "${spec.type}" takes a body serve has no schema for: "${spec.body}"`);
    return { spec, params };
  }
  return undefined;
}
