import type { Ir } from '@kairoku-playbook/compiler';
import { DEFAULT_MAX_STATES, explore } from './explore.js';

/**
 * The IR with the bounds of a run, as `compile` writes it (and the playground shows it: one engine).
 * The budget is in states, not seconds, so the same playbook gives the same IR on every machine; it
 * shrinks with the square of the number of steps (a state costs about its steps to expand, so the work
 * shrinks as steps grow): the samples explore to the end (100,000 states up to 20 steps), 100 steps get
 * 4,000, a 2,000-step playbook 10 (its static bound).
 */
export function withBounds(ir: Ir): Ir {
  const steps = Math.max(20, ir.steps.length);
  const maxStates = Math.max(10, Math.floor((DEFAULT_MAX_STATES * 400) / (steps * steps)));
  const { bounds } = explore(ir, { maxStates });
  // (a run that goes round forever would have no bound: none under the current semantics)
  const finite = [bounds.agentTurns, bounds.gateDecisions, bounds.chainTurns, bounds.longestMs].every(
    Number.isFinite,
  );
  return finite ? { ...ir, bounds } : ir;
}
