import type { Effect, RunEvent, RunState } from '@kairoku-playbook/machine';

// The driver's side of the contract with backends: it is defined here, where it is used, so the
// driver and the hosts never import a backend; each backend (`src/backends/`) implements it.

/** The effects a backend performs; `step-ready` and `persist` are the driver's own. */
export type BackendEffect = Exclude<Effect, { type: 'step-ready' } | { type: 'persist' }>;

export interface BackendContext {
  /** feeds an event back into the run, now (it is queued) or later */
  emit(event: RunEvent): void;
  /**
   * feeds an event in and answers at once with its refusal (undefined when accepted), for a backend
   * that must tell its caller (a step agent's report); while the run is busy with other events it is
   * queued and answers undefined. Refusals of `emit`ted and `submit`ted events land in the history.
   */
  submit(event: RunEvent): string | undefined;
  /**
   * The refusal `event` would get now (undefined when it would be taken), judged by the driver with
   * its clock and options, without applying it. For a backend that must answer its caller at once but
   * feeds the event in later (a read-only role's report waits for the end of its turn and the
   * worktree check): it then feeds it with `emit` or `submit` like any other. Events queued behind
   * the one being applied are not counted.
   */
  refusalOf(event: RunEvent): string | undefined;
  /** the run as it is now */
  state(): RunState;
}

/**
 * What drives agents, checks and gates: `sim`, `paseo`, `kairoku` (`src/backends/`), and the manager
 * protocol's `ProtocolBackend`. A backend performs one effect at a time and reports what happens as
 * events; it never edits run state.
 */
export interface Backend {
  readonly name: string;
  /**
   * Its effects touch nothing outside this process (the sim's scripted agents, an outbox that only
   * records them): the driver performs them as they come, within the batch, before the batch's write.
   * Any other backend's effects wait for the write of the state that made them (write first, then act).
   */
  readonly inMemory?: boolean;
  perform(effect: BackendEffect, context: BackendContext): void;
  /** whether the agent behind a handle still exists: the lost-agent rule after a restart */
  agentExists(agent: string | undefined): boolean;
  /** resolves once its connections and endpoints are closed: await it before the process ends */
  close?(): Promise<void>;
}
