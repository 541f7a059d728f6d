import type { CarriedEffect, RunState } from '@kairoku-playbook/machine';
import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';

/**
 * A run's outbox: the effects of a change applied where nobody could perform them (an operator's
 * decision on a run that no process here hosts, or that another process's manager manages), saved on
 * the run in the same write as the change. The process that hosts the run next (serve, `run`, a
 * manager's MCP server) takes them and performs them as the effects they were: stop these agents,
 * deliver this nudge, wake the manager with the decision. Nothing is ever rebuilt from the history,
 * which is for people.
 */

/** What of an effect is carried: gates stay in the run's state; a check's environment is withheld (secrets). */
export function carry(effect: BackendEffect): CarriedEffect | undefined {
  switch (effect.type) {
    case 'open-gate':
    case 'close-gate':
      return undefined;
    case 'start-check': {
      const { env, ...rest } = effect;
      return { ...rest, env: {}, withheld: Object.keys(env) };
    }
    default:
      return effect;
  }
}

/** The backend of a change applied in place: it performs nothing and keeps what is to be carried. */
export function outboxBackend(name: string): Backend & { readonly kept: CarriedEffect[] } {
  const kept: CarriedEffect[] = [];
  return {
    name,
    kept,
    // (it only records: the effects must be kept before the write that carries them)
    inMemory: true,
    perform(effect) {
      const carried = carry(effect);
      if (carried) kept.push(carried);
    },
    // A change applied in place judges no agent (the lost-agent rule is its host's, when it takes it up).
    agentExists: () => true,
  };
}

/** `state` with `effects` added at the end of its outbox. */
export function withCarried(state: RunState, effects: readonly CarriedEffect[]): RunState {
  if (!effects.length) return state;
  return { ...state, outbox: [...(state.outbox ?? []), ...effects] };
}

/** `state` without its outbox (taken by the process that performs it). */
export function withoutOutbox(state: RunState): RunState {
  if (state.outbox === undefined) return state;
  const { outbox: _taken, ...rest } = state;
  return rest;
}

/**
 * Performs a carried effect with `backend`, as the effect it was. A check whose environment was
 * withheld cannot run as it was asked: its attempt is lost, saying why, so a retry starts it with its
 * environment where the run is hosted.
 */
export function performCarried(effect: CarriedEffect, backend: Backend, context: BackendContext): void {
  if (effect.type !== 'start-check') {
    backend.perform(effect, context);
    return;
  }
  const { withheld, ...check } = effect;
  if (!withheld.length) {
    backend.perform(check, context);
    return;
  }
  context.emit({
    type: 'agent-lost',
    step: effect.step,
    attempt: effect.attempt,
    reason: `its check was started where its environment (${withheld.join(', ')}) could not be kept: retry it`,
  });
}
