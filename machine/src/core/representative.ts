import { representative } from '@kairoku-playbook/compiler';
import type { IrAfterTask, IrStep } from '@kairoku-playbook/compiler';

// Values made from declared types: what the sim backend's unscripted agents report, and the explorer's
// stand-ins. Both need them, and the explorer does not import a backend.

/**
 * Outputs made from their types: a check passes with `passed: 1` (fails with `failed: 1`); an agent
 * step's strings read `STEP.OUTPUT` (or what `string` makes of that path: the sim's `simString`),
 * enums take their first member, numbers 0, lists one item.
 */
export function generatedOutputs(
  ir: IrStep | IrAfterTask,
  outcome: string,
  string: (hint: string) => string = (hint) => hint,
): Record<string, unknown> {
  if (ir.kind === 'check') {
    const pass = outcome === 'pass';
    return { passed: pass ? 1 : 0, failed: pass ? 0 : 1, skipped: 0, todo: 0, exit_code: pass ? 0 : 1 };
  }
  const properties = (ir.outputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const outputs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties))
    outputs[name] = representative(schema, `${ir.name}.${name}`, string);
  return outputs;
}

/**
 * A simulated string, for the output at `path` (`STEP.OUTPUT`, `STEP.OUTPUT[0].FIELD`):
 * `sim/STEP-3a9c1f`, so that a gate titled with it reads as simulated ("Ship sim/implement-3a9c1f?")
 * rather than as a template left unrendered ("Ship implement.branch?"). The six hex digits are a hash
 * of the whole path (FNV-1a; no node:crypto, as the explorer runs in the playground's page too), so
 * each output gets its own value and the same playbook the same values on every run.
 */
export function simString(path: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193) >>> 0;
  const step = /^[^.[]*/.exec(path)![0];
  return `sim/${step}-${hash.toString(16).padStart(8, '0').slice(0, 6)}`;
}
