/**
 * One dispatch on a runner: what the runner keeps of it from its claim until the app acknowledges its
 * terminal status, why the runner refuses one, and running its agent or its check to that status.
 */
import type { IrRole } from '@kairoku-playbook/compiler';
import { MASK } from '@kairoku-playbook/machine';
import { LIMITS, bound, isFixedRole } from '../backends/kairoku/protocol.js';
import type { Dispatch, Terminal, TerminalStatus, UpdateRequest } from '../backends/kairoku/protocol.js';
import { checkDirectory } from '../exec/perform-check.js';
import { runCheckCommands } from '../exec/run-commands.js';
import { decideToolCall } from '../tool-policy.js';
import type { EventLog } from './event-log.js';
import type { RunnerOptions } from './options.js';
import { isProviderName } from './providers/index.js';
import type { Launched, Provider } from './providers/index.js';
import { changedPaths } from './worktree.js';

export type StopStatus = Extract<TerminalStatus, 'canceled' | 'timed-out' | 'interrupted'>;

/** One dispatch this runner holds, from its claim until the app has acknowledged its terminal status. */
export interface Active {
  doc: Dispatch;
  events: EventLog;
  seq: number;
  /** the update being sent, resent as it is until the app answers (RF-020: a failed send leads) */
  unsent: UpdateRequest | undefined;
  sending: Promise<void>;
  terminal: Terminal | undefined;
  terminalSent: boolean;
  /** the app no longer wants updates for it (409): it is torn down and forgotten */
  closed: boolean;
  stop: { status: StopStatus; reason: string } | undefined;
  abort: AbortController;
  /** the dispatch's agent, once its provider launched it (RF-014) */
  launched: Launched | undefined;
  worktree: string | undefined;
}

/** Stops a dispatch's process: supervise then reports the status it was stopped with. */
export function stopDispatch(a: Active, status: StopStatus, reason: string): void {
  if (a.stop || a.terminal) return;
  a.stop = { status, reason };
  a.events.say('phase', `stopping: ${reason}`);
  a.abort.abort();
  // Started here, awaited by supervise's teardown (interrupt returns the same promise again).
  void a.launched?.interrupt();
}

/** Why this runner will not run a dispatch, or undefined. */
export function dispatchRefusal(
  d: Dispatch,
  options: Pick<RunnerOptions, 'repository' | 'machine'>,
  provider: Provider | undefined,
): string | undefined {
  if (d.repository !== options.repository)
    return `this runner serves ${options.repository}, not ${d.repository}`;
  if (d.machine !== null && d.machine !== options.machine)
    return `the dispatch asks for machine ${d.machine}; this is ${options.machine}`;
  if (d.kind === 'agent') {
    if (!isFixedRole(d.agent!.role))
      return `role "${d.agent!.role}" is not in this runner's fixed table (implementer, reviewer, planner, researcher): refused (RF-009)`;
    if (!provider)
      return 'this runner has no agent command configured (--agent-command, or --provider claude|codex)';
    const asked = d.agent!.provider;
    if (
      asked &&
      provider.name !== 'command' &&
      isProviderName(asked) &&
      asked !== 'command' &&
      asked !== provider.name
    )
      return `the dispatch asks for the ${asked} provider; this runner runs ${provider.name} agents (--provider)`;
  }
  return undefined;
}

/** Runs a dispatch's agent under its provider to a terminal status (RF-014, RF-018). */
export async function runAgent(
  a: Active,
  worktree: string,
  run: { provider: Provider; dispatchFile: string; graceMs: number },
): Promise<Terminal> {
  const d = a.doc;
  const agent = d.agent!;
  const role = roleOf(d);
  const provider = run.provider;
  const launched = provider.launch({
    dispatch: d,
    worktree,
    dispatchFile: run.dispatchFile,
    role,
    graceMs: run.graceMs,
    decide: (call) => decideToolCall(role, call, { worktree }),
  });
  a.launched = launched;
  // The agent may have been stopped while it started. Started here, awaited by supervise's teardown
  // (interrupt returns the same promise again).
  if (a.stop) void launched.interrupt();
  // RF-003: every event to the full log; the curated ones wait for the next update.
  const consumed = (async () => {
    for await (const event of launched.events) a.events.provider(provider.name, event.raw, event.curated);
  })().catch((error: unknown) =>
    a.events.say('stderr', `the provider's event stream broke: ${(error as Error).message}`),
  );
  const clock = setTimeout(
    () => stopDispatch(a, 'timed-out', `the wall clock of ${d.wallClockMs} ms ran out (RF-018)`),
    Math.min(d.wallClockMs, 2 ** 31 - 1),
  );
  const exit = await launched.exit;
  clearTimeout(clock);
  await launched.interrupt();
  // What the agent emitted last is read before the terminal status is composed (unless something
  // that left the group still holds its pipes).
  await Promise.race([consumed, sleep(1000)]);
  if (a.stop) return { status: a.stop.status, reason: a.stop.reason, exitCode: exit.code };
  if (exit.error)
    return {
      status: 'failed',
      reason: bound(`the agent could not start: ${exit.error.message}`, LIMITS.reason),
    };
  const ok = exit.code === 0 && exit.reason === undefined;
  const terminal: Terminal = {
    status: ok ? 'completed' : 'failed',
    exitCode: exit.code,
    ...(ok
      ? {}
      : {
          reason: bound(
            exit.reason ?? `the agent exited ${exit.signal ? `on ${exit.signal}` : `with ${exit.code}`}`,
            LIMITS.reason,
          ),
        }),
  };
  // SPEC §3.3: a read-only role's worktree is checked before it is removed.
  if (agent.readOnly) terminal.worktreeChanges = await changedPaths(worktree, LIMITS.changedPaths);
  return terminal;
}

/** Runs a dispatch's check commands in its worktree to a terminal status. */
export async function runDispatchCheck(a: Active, worktree: string, graceMs: number): Promise<Terminal> {
  const d = a.doc;
  const check = d.check!;
  const dir = checkDirectory(worktree, check.cwd);
  if (typeof dir !== 'string') return { status: 'failed', reason: dir.refused };
  const result = await runCheckCommands({
    commands: check.commands,
    cwd: dir,
    env: check.env,
    timeoutMs: d.wallClockMs,
    signal: a.abort.signal,
    killGraceMs: graceMs,
  });
  for (const line of result.output.split('\n')) if (line) a.events.record({ type: 'output', text: line });
  a.events.say('status', bound(result.summary, LIMITS.eventText));
  if (result.timedOut)
    return { status: 'timed-out', reason: `the wall clock of ${d.wallClockMs} ms ran out (RF-018)` };
  if (a.stop || result.aborted)
    return { status: a.stop?.status ?? 'interrupted', reason: a.stop?.reason ?? 'the check was stopped' };
  return {
    status: 'completed',
    exitCode: result.outputs.exit_code,
    check: { outcome: result.outcome, ...result.outputs, summary: bound(result.summary, LIMITS.reason) },
  };
}

/**
 * A dispatch as its breadcrumb keeps it (and the agent reads it): without the report token (the agent
 * has it in KAIROKU_REPORT_TOKEN) and without a check's env values, which may be secret inputs —
 * a file outlives a crash, and what a restart needs of it is the dispatch's id and place.
 */
export function withoutSecrets(d: Dispatch): Dispatch {
  const copy = structuredClone(d);
  if (copy.agent) copy.agent.report.token = MASK;
  if (copy.check) for (const name of Object.keys(copy.check.env)) copy.check.env[name] = MASK;
  return copy;
}

/** The policy a dispatch carries, as the one policy function takes it (RF-017). */
function roleOf(d: Dispatch): IrRole {
  const agent = d.agent!;
  return {
    name: agent.playbookRole,
    base: agent.role as IrRole['base'],
    instructions: agent.instructions,
    provider: agent.provider,
    model: agent.model,
    mode: agent.mode,
    tools: agent.policy,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
