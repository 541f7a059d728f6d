/**
 * Runs driven on the paseo backend against the fake Paseo daemon, in this process (`PaseoRun`), and check
 * steps scripted per attempt. Tests import it through the test kit (test/kit/index.ts).
 */
import type { Ir } from '@kairoku-playbook/compiler';
import { vi } from 'vitest';
import type { Backend, BackendContext } from '../../src/driver/backend.js';
import { PaseoBackend } from '../../src/backends/paseo/backend.js';
import type { CheckExecutor, PaseoBackendOptions, StartCheck } from '../../src/backends/paseo/backend.js';
import type { Log, LogLevel } from '../../src/backends/paseo/client.js';
import { runBranch } from '../../src/backends/paseo/worktree.js';
import {
  createRun,
  generatedOutputs,
  isEnded,
  prepareInputs,
  splitSecrets,
  vecToArray,
} from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { Driver } from '../../src/driver/driver.js';
import type { FakePaseoDaemon } from './daemon.js';

/** Check steps that report the outcomes given per attempt (the last repeats), with generated counts. */
export function scriptedChecks(outcomes: Record<string, string[]>) {
  const started: StartCheck[] = [];
  const stopped: string[] = [];
  const folders: string[] = [];
  const make = (cwd: string): CheckExecutor => {
    folders.push(cwd);
    return {
      start(effect: StartCheck, context: BackendContext) {
        started.push(effect);
        setImmediate(() => {
          const { step, attempt } = effect;
          context.emit({ type: 'step-started', step, attempt, agent: `check:${step}#${attempt}` });
          const list = outcomes[step] ?? ['pass'];
          const outcome = list[Math.min(attempt, list.length) - 1]!;
          const ir = context.state().ir.steps.find((s) => s.name === step)!;
          context.emit({ type: 'report', step, attempt, outcome, outputs: generatedOutputs(ir, outcome) });
        });
      },
      stop(step: string, attempt: number) {
        stopped.push(`${step}#${attempt}`);
      },
      stopAll() {},
    };
  };
  return { make, started, stopped, folders };
}

export interface PaseoRunOptions {
  ir: Ir;
  daemon: FakePaseoDaemon;
  cwd: string;
  inputs?: Record<string, unknown>;
  runId?: string;
  checks?: (cwd: string) => CheckExecutor;
  /** gate choices per opening (the last repeats); default: each gate's first choice */
  gates?: Record<string, string[]>;
  backend?: Partial<PaseoBackendOptions>;
}

/**
 * A run driven on the paseo backend against the fake daemon, with autopilot (as the CLI's host will
 * drive it): the driver gets the backend's events from its callbacks, gates are decided here.
 */
export class PaseoRun {
  private constructor(
    readonly driver: Driver,
    readonly backend: PaseoBackend,
    /** what the backend logged */
    readonly logs: { level: LogLevel; message: string }[],
  ) {}

  static async start(options: PaseoRunOptions): Promise<PaseoRun> {
    const { ir } = options;
    const prepared = prepareInputs(ir, options.inputs ?? {});
    if (!prepared.ok) throw new Error(prepared.errors.join('; '));
    const runId = options.runId ?? `${ir.id}-3a9c1f`;
    const logs: { level: LogLevel; message: string }[] = [];
    const log: Log = (level, message) => logs.push({ level, message });
    const backend = await PaseoBackend.connect({
      host: options.daemon.host,
      cwd: options.cwd,
      workspace: ir.workspace,
      runId,
      playbook: ir.id,
      log,
      connection: { reconnect: { initialDelayMs: 10, maxDelayMs: 100 }, requestTimeoutMs: 10_000 },
      ...(options.checks ? { checks: options.checks } : {}),
      ...(options.backend ?? {}),
    });
    const openings = new Map<string, number>();
    const gated: Backend = {
      name: 'paseo',
      agentExists: (agent) => backend.agentExists(agent),
      perform(effect, context) {
        if (effect.type === 'open-gate') {
          const count = (openings.get(effect.step) ?? 0) + 1;
          openings.set(effect.step, count);
          const list = options.gates?.[effect.step];
          const choice = list?.length ? list[Math.min(count, list.length) - 1]! : effect.choices[0]!.name;
          setImmediate(() => context.emit({ type: 'gate-decided', step: effect.step, choice }));
          return;
        }
        backend.perform(effect, context);
      },
    };
    const state = createRun(ir, {
      id: runId,
      inputs: prepared.inputs,
      now: Date.now(),
      backend: 'paseo',
      branch: ir.workspace === 'new-worktree' ? runBranch(ir.id, runId) : '',
    });
    const driver = new Driver(state, { backend: gated, secrets: splitSecrets(ir, prepared.inputs).secrets });
    const run = new PaseoRun(driver, backend, logs);
    driver.dispatch({ type: 'start' });
    return run;
  }

  get state(): RunState {
    return this.driver.state;
  }

  /** Waits until the run has ended and nothing of it (after-tasks included) is still at work. */
  async settled(timeout = 20_000): Promise<RunState> {
    await vi.waitFor(
      () => {
        if (!isEnded(this.state.status) || busy(this.state))
          throw new Error(`the run is ${this.state.status}: ${describe(this.state)}`);
      },
      { timeout, interval: 10 },
    );
    return this.state;
  }

  async until(check: (state: RunState) => boolean, timeout = 20_000): Promise<RunState> {
    await vi.waitFor(
      () => {
        if (!check(this.state))
          throw new Error(`not yet: the run is ${this.state.status}: ${describe(this.state)}`);
      },
      { timeout, interval: 10 },
    );
    return this.state;
  }

  async close(): Promise<void> {
    await this.backend.close();
  }
}

function busy(state: RunState): boolean {
  return [...vecToArray(state.steps), ...state.after].some(
    (s) => s.status === 'running' || s.status === 'reported' || s.status === 'ready',
  );
}

function describe(state: RunState): string {
  return [...vecToArray(state.steps), ...state.after].map((s) => `${s.name}=${s.status}`).join(' ');
}
