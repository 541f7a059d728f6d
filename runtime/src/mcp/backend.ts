import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import { SimBackend } from '../backends/sim.js';
import type { Scenario } from '../backends/scenario.js';
import type { Effect, OpenGate } from '@kairoku-playbook/machine';
import { isGitWorktree } from '../worktree/git-snapshot.js';
import type { StoredReadOnlyGuard } from '../worktree/stored-guard.js';

/** Who does a started step's work when a manager drives the run over MCP. */
export type AgentMode = 'sim' | 'external' | 'paseo';

/**
 * The run's `backend` for each mode: `sim` agents live in the server; `mcp` ones connect to it;
 * `paseo` ones are agents of a Paseo daemon, watched by the manager's server (`PaseoHost`).
 */
export const BACKEND_OF: Record<AgentMode, string> = { sim: 'sim', external: 'mcp', paseo: 'paseo' };

export type StartEffect = Extract<Effect, { type: 'start-agent' } | { type: 'start-check' }>;

/**
 * The backend behind one tool call of the manager protocol. It performs the effects of each
 * transition and keeps what the caller should hear about: agents started, gates opened, nudges.
 * (Wake-ups reach an MCP manager as the `events` of each result: a stdio server cannot start a turn.)
 *
 * - `sim`: the sim backend's scripted or generated agents report at once (SPEC §8). Gates stay open
 *   for the human (`resume`), unless the scenario decides them, as a person in the panel would.
 * - `external`: nothing reports by itself; a started step waits for `report_step_result` from a step
 *   agent's server (or from a test through `--with-step-tools`).
 * - `paseo`: effects go to `forward` (the server's `PaseoHost`, which hands them to the run's
 *   `PaseoBackend`); its agents report later, through the backend's endpoint. Wake-ups of a tool
 *   call are not forwarded: the manager is the caller, and hears of them in the result.
 */
export class ProtocolBackend implements Backend {
  readonly name: string;
  readonly started: StartEffect[] = [];
  readonly opened: OpenGate[] = [];
  readonly nudges: Extract<Effect, { type: 'nudge-agent' }>[] = [];
  private readonly sim: SimBackend | undefined;

  /**
   * `guard`: external agents of read-only roles have their run's worktree snapshotted when they start
   * and checked when they report (PlaybookProtocol.reportStepResult).
   */
  constructor(
    readonly mode: AgentMode,
    scenario?: Scenario,
    private readonly guard?: StoredReadOnlyGuard,
    private readonly forward?: (effect: BackendEffect) => void,
  ) {
    this.name = BACKEND_OF[mode];
    this.sim =
      mode === 'sim'
        ? new SimBackend({ ...(scenario ? { scenario } : {}), askGate: () => undefined })
        : undefined;
  }

  agentExists(agent: string | undefined): boolean {
    // Sim agents never outlive the call that started them; external ones live in other processes.
    return this.sim ? this.sim.agentExists(agent) : agent !== undefined;
  }

  perform(effect: BackendEffect, context: BackendContext): void {
    switch (effect.type) {
      case 'start-agent':
      case 'start-check':
        this.started.push(effect);
        break;
      case 'open-gate':
        this.opened.push(effect);
        break;
      case 'nudge-agent':
        this.nudges.push(effect);
        break;
    }
    if (this.sim) {
      this.sim.perform(effect, context);
      return;
    }
    if (this.mode === 'paseo') {
      if (effect.type !== 'wake-manager') this.forward?.(effect);
      return;
    }
    if (effect.type === 'start-agent' || effect.type === 'start-check') {
      const state = context.state();
      const agent = `mcp:${state.id}:${effect.step}:${effect.attempt}`;
      context.emit({ type: 'step-started', step: effect.step, attempt: effect.attempt, agent });
      if (effect.type === 'start-agent' && effect.readOnly && this.guard && state.workspace) {
        // A workspace outside git cannot be checked at all: said in the history, not failed, since
        // the manager's workspace is wherever its server runs (a sim --worktree is asked for, and fails).
        if (!isGitWorktree(state.workspace))
          context.emit({
            type: 'note',
            kind: 'backend',
            step: effect.step,
            attempt: effect.attempt,
            text: `the read-only role is not checked: the workspace ${state.workspace} is not a git worktree`,
          });
        else {
          const unreadable = this.guard.begin(state.id, effect.step, effect.attempt, state.workspace);
          if (unreadable) context.emit(unreadable);
        }
      }
    }
  }
}
