import type { BackendContext } from '../driver/backend.js';
import { performCheck } from './perform-check.js';
import type { RunningCheck, StartCheck } from './perform-check.js';

export interface CheckRunnerOptions {
  /** the run's worktree, where checks run (a function, for a backend that serves several runs) */
  worktree: string | ((context: BackendContext) => string);
  killGraceMs?: number;
  outputLimitBytes?: number;
}

interface Entry {
  runId: string;
  step: string;
  attempt: number;
  check: RunningCheck;
}

/**
 * The checks a backend has going: `start` for a `start-check` effect, `stop` for a `stop-agent` one
 * (it is a no-op for agents and for checks already over), `stopAll` when the backend closes. Checks
 * are keyed by their handle, so one runner can serve several runs.
 */
export class CheckRunner {
  private readonly checks = new Map<string, Entry>();

  constructor(private readonly options: CheckRunnerOptions) {}

  start(effect: StartCheck, context: BackendContext): RunningCheck {
    const runId = context.state().id;
    const worktree =
      typeof this.options.worktree === 'string' ? this.options.worktree : this.options.worktree(context);
    const check = performCheck(effect, context, {
      cwd: worktree,
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
      ...(this.options.outputLimitBytes !== undefined
        ? { outputLimitBytes: this.options.outputLimitBytes }
        : {}),
    });
    // the same attempt started again (it should not be): the older one goes
    this.checks.get(check.agent)?.check.stop('started again');
    const entry: Entry = { runId, step: effect.step, attempt: effect.attempt, check };
    this.checks.set(check.agent, entry);
    // `done` turns the check's failures into its report; this only forgets the check once it is over.
    void check.done.then(() => {
      if (this.checks.get(check.agent) === entry) this.checks.delete(check.agent);
    });
    return check;
  }

  /**
   * Stops a step's check attempt; with `runId`, only that run's (a runner serving several runs should
   * pass it). True when a check was running.
   */
  stop(step: string, attempt: number, reason: string, runId?: string): boolean {
    let any = false;
    for (const entry of this.checks.values()) {
      if (entry.step !== step || entry.attempt !== attempt) continue;
      if (runId !== undefined && entry.runId !== runId) continue;
      entry.check.stop(reason);
      any = true;
    }
    return any;
  }

  /** Stops every check (the backend closes); resolves once their processes are gone. */
  async stopAll(reason: string): Promise<void> {
    const all = [...this.checks.values()];
    for (const entry of all) entry.check.stop(reason);
    await Promise.all(all.map((entry) => entry.check.done));
  }

  /** whether the check behind a handle is still going (for `Backend.agentExists`) */
  has(agent: string | undefined): boolean {
    return agent !== undefined && this.checks.has(agent);
  }

  /** how many checks are going */
  get size(): number {
    return this.checks.size;
  }
}
