import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { ProcessGroup } from '../../exec/process-group.js';
import { EventQueue } from './types.js';
import type { ProviderEvent, ProviderExit } from './types.js';

/** An agent process of a provider that speaks lines on stdout (the `command` and `codex` providers). */
export interface AgentProcess {
  child: ChildProcess;
  /** every event, in order; ends once stdout and stderr have closed (or the process did not start) */
  events: EventQueue;
  exit: Promise<ProviderExit>;
  /** ends the agent's process group (SIGTERM, SIGKILL after the grace); the same promise each call */
  interrupt(): Promise<void>;
}

/**
 * Spawns an agent as the leader of a process group of its own, so that its teardown ends whatever it
 * started (RF-010). Each stdout line goes to `onLine`, with its JSON object when it is one; each
 * stderr line is a stderr event. `reason` is asked once the process exits: why its turn failed.
 */
export function spawnAgent(args: {
  command: string;
  args?: readonly string[];
  shell?: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  graceMs: number;
  onLine(line: string, object: Record<string, unknown> | undefined): void;
  reason?: () => string | undefined;
}): AgentProcess {
  const events = new EventQueue();
  const child = spawn(args.command, args.args ?? [], {
    shell: args.shell ?? false,
    cwd: args.cwd,
    env: args.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const group = child.pid !== undefined ? new ProcessGroup(child.pid, args.graceMs) : undefined;
  child.stdin!.on('error', () => undefined);
  let interrupted: Promise<void> | undefined;
  const interrupt = () =>
    (interrupted ??= (async () => {
      await group?.terminate();
      group?.release();
    })());
  const exit = new Promise<ProviderExit>((resolve) => {
    child.once('error', (error) => {
      events.end();
      resolve({ code: null, signal: null, error });
    });
    child.once('exit', (code, signal) => {
      const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null);
      const reason = args.reason?.();
      resolve({ code: exitCode, signal, ...(reason ? { reason } : {}) });
    });
  });
  let open = 2;
  const closeOne = () => {
    if (--open === 0) events.end();
  };
  createInterface({ input: child.stdout! })
    .on('line', (line) => args.onLine(line, jsonObject(line)))
    .on('close', closeOne);
  createInterface({ input: child.stderr! })
    .on('line', (line) => events.push(stderrEvent(line)))
    .on('close', closeOne);
  return { child, events, exit, interrupt };
}

/** One line the agent wrote on stderr, as an event. */
export function stderrEvent(line: string): ProviderEvent {
  return { raw: { type: 'stderr', text: line }, curated: { kind: 'stderr', text: line } };
}

function jsonObject(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // plain text
  }
  return undefined;
}
