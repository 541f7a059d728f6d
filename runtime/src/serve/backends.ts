import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';
import type { RunState } from '@kairoku-playbook/machine';
import { readScenario } from '../backends/scenario.js';
import { SimBackend } from '../backends/sim.js';

/**
 * The sim backend as a host drives it: scripted by the scenario given to `serve` (when it fits the
 * run's playbook; otherwise generated agents), and with `delayMs`, each agent's and check's turn
 * taking that long without blocking the host (a timer, not the sim's blocking sleep), so runs stay
 * active long enough to be watched, paused or killed. Gates are the host's: never decided here.
 */
export function simBackendFor(
  scenario: unknown,
  delayMs = 0,
  warn: (line: string) => void = () => undefined,
): (state: RunState) => Backend {
  const warned = new Set<string>();
  return (state) => {
    const read = scenario === undefined ? undefined : readScenario(scenario, state.ir, 'test');
    // A scenario is for one playbook: a run of another gets generated reports, and the log says so once.
    if (read?.errors.length && !warned.has(state.ir.source.sha256)) {
      warned.add(state.ir.source.sha256);
      warn(
        `serve: the scenario does not fit ${state.ir.source.file} (${read.errors.join('; ')}): its runs report each step's first outcome`,
      );
    }
    const sim = new SimBackend({
      ...(read && !read.errors.length ? { scenario: read.scenario } : {}),
      askGate: () => undefined,
    });
    return delayMs > 0 ? new DelayedBackend(sim, delayMs) : sim;
  };
}

/** Holds each agent's and check's turn for `delayMs` before the backend performs it. */
class DelayedBackend implements Backend {
  readonly name: string;
  readonly inMemory: boolean | undefined;
  private readonly pending = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly inner: Backend,
    private readonly delayMs: number,
  ) {
    this.name = inner.name;
    this.inMemory = inner.inMemory;
  }

  agentExists(agent: string | undefined): boolean {
    return this.inner.agentExists(agent);
  }

  perform(effect: BackendEffect, context: BackendContext): void {
    if (effect.type === 'start-agent' || effect.type === 'start-check' || effect.type === 'remind-agent') {
      const key = `${effect.step}#${effect.attempt}`;
      const timer = setTimeout(() => {
        this.pending.delete(key);
        this.inner.perform(effect, context);
      }, this.delayMs);
      this.pending.set(key, timer);
      return;
    }
    if (effect.type === 'stop-agent') {
      const key = `${effect.step}#${effect.attempt}`;
      clearTimeout(this.pending.get(key));
      this.pending.delete(key);
    }
    this.inner.perform(effect, context);
  }

  async close(): Promise<void> {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await this.inner.close?.();
  }
}
