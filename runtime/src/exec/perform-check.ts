import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { BackendContext, BackendEffect } from '../driver/backend.js';
import { EXIT_NOT_STARTED, runCheckCommands } from './run-commands.js';
import type { CheckOutputs } from './run-commands.js';

export type StartCheck = Extract<BackendEffect, { type: 'start-check' }>;

export interface PerformCheckOptions {
  /** the run's worktree; the effect's `cwd` is relative to it */
  cwd: string;
  killGraceMs?: number;
  outputLimitBytes?: number;
}

export interface RunningCheck {
  /** the check's handle, as `step-started` gave it: `check:<run id>:<step>:<attempt>` */
  readonly agent: string;
  /** Kills the check's commands; the check reports nothing more (the core has moved on). */
  stop(reason: string): void;
  /** resolves once the check's processes are gone and its event, if any, was emitted */
  done: Promise<void>;
}

/** The handle of a check's attempt, which `step-started` gives the core (its lost-agent rule). */
export function checkHandle(runId: string, step: string, attempt: number): string {
  return `check:${runId}:${step}:${attempt}`;
}

/**
 * Performs a `start-check` effect for a backend: emits `step-started`, runs the commands in the
 * worktree and emits what came of them. A `report` with outcome `pass` or `fail`, the summary and the
 * outputs; or, when the step's timeout ended it, `timeout` (the core ends the attempt, and its
 * `stop-agent` then finds the check already over). After `stop()` (the core's `stop-agent`: a cancel,
 * a timeout it saw first) nothing more is emitted. A `cwd` that leads out of the worktree is not run:
 * the check fails, saying so.
 */
export function performCheck(
  effect: StartCheck,
  context: BackendContext,
  options: PerformCheckOptions,
): RunningCheck {
  const { step, attempt } = effect;
  const agent = checkHandle(context.state().id, step, attempt);
  context.emit({ type: 'step-started', step, attempt, agent });
  const where = checkDirectory(options.cwd, effect.cwd);
  if (typeof where !== 'string') {
    const summary = `fail: ${where.refused}`;
    context.emit({ type: 'report', step, attempt, outcome: 'fail', summary, outputs: notRun() });
    return { agent, stop: () => undefined, done: Promise.resolve() };
  }
  const controller = new AbortController();
  let stopped = false;
  const done = runCheckCommands({
    commands: effect.commands,
    cwd: where,
    env: effect.env,
    timeoutMs: effect.timeoutMs,
    signal: controller.signal,
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    ...(options.outputLimitBytes !== undefined ? { outputLimitBytes: options.outputLimitBytes } : {}),
  }).then(
    (run) => {
      if (stopped) return;
      if (run.timedOut) context.emit({ type: 'timeout', step, attempt });
      else
        context.emit({
          type: 'report',
          step,
          attempt,
          outcome: run.outcome,
          summary: run.summary,
          outputs: { ...run.outputs },
        });
    },
    (error: unknown) => {
      if (stopped) return;
      const summary = `fail: the check could not be run: ${(error as Error).message}`;
      context.emit({ type: 'report', step, attempt, outcome: 'fail', summary, outputs: notRun() });
    },
  );
  return {
    agent,
    stop(reason) {
      if (stopped) return;
      stopped = true;
      controller.abort(reason);
    },
    done,
  };
}

/**
 * The directory a check runs in: the worktree, or `cwd` inside it. A `cwd` that leads out of it (`..`,
 * an absolute path elsewhere, a symbolic link to outside) is refused.
 */
export function checkDirectory(worktree: string, cwd: string | null): string | { refused: string } {
  const root = resolve(worktree);
  if (cwd === null || cwd === '') return root;
  const target = resolve(root, cwd);
  const refused = { refused: `the check's cwd ${JSON.stringify(cwd)} leads out of the worktree` };
  if (!inside(root, target)) return refused;
  let real: { root: string; target: string };
  try {
    real = { root: realpathSync(root), target: realpathSync(target) };
  } catch {
    // a directory that does not exist: the run says so
    return target;
  }
  return inside(real.root, real.target) ? target : refused;
}

/** the outputs of a check whose commands did not run */
function notRun(): CheckOutputs & Record<string, unknown> {
  return { passed: 0, failed: 0, skipped: 0, todo: 0, exit_code: EXIT_NOT_STARTED };
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) || /^\.\.[^/\\]/.test(rel);
}
