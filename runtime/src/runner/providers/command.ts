import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { createInterface } from 'node:readline';
import { ProcessGroup } from '../../exec/process-group.js';
import type { ToolCall } from '../../policy/decide.js';
import { curatedOf } from '../event-log.js';
import { EventQueue, decisionEvent } from './types.js';
import type { LaunchContext, Launched, Provider, ProviderExit } from './types.js';

/**
 * The `command` provider: the agent is a shell command run in the dispatch's worktree, in a process
 * group of its own. It learns its dispatch from the environment (KAIROKU_DISPATCH_FILE,
 * KAIROKU_REPORT_URL, KAIROKU_REPORT_TOKEN, …), prints JSON events or plain text on stdout, and asks
 * for a tool with `{"type":"tool-request","id":…,"call":{…}}`, answered on its stdin with
 * `{"type":"tool-decision","id":…,"decision":"allow"|"deny",…}` by the one policy function (RF-017).
 */
export class CommandProvider implements Provider {
  readonly name = 'command';

  constructor(private readonly command: string) {}

  launch(context: LaunchContext): Launched {
    const d = context.dispatch;
    const agent = d.agent!;
    const events = new EventQueue();
    const child = spawn(this.command, {
      shell: true,
      cwd: context.worktree,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        KAIROKU_DISPATCH_FILE: context.dispatchFile,
        KAIROKU_DISPATCH_ID: d.id,
        KAIROKU_RUN: d.run,
        KAIROKU_STEP: d.step,
        KAIROKU_ATTEMPT: String(d.attempt),
        KAIROKU_ROLE: agent.role,
        KAIROKU_WORKTREE: context.worktree,
        // RF-008: the agent's own credential, for this dispatch only.
        KAIROKU_REPORT_URL: agent.report.url,
        KAIROKU_REPORT_TOKEN: agent.report.token,
      },
    });
    const group = child.pid !== undefined ? new ProcessGroup(child.pid, context.graceMs) : undefined;
    child.stdin!.on('error', () => undefined);
    let open = 2;
    const closeOne = () => {
      if (--open === 0) events.end();
    };
    createInterface({ input: child.stdout! })
      .on('line', (line) => {
        const event = jsonObject(line);
        if (!event)
          return events.push({
            raw: { type: 'message', text: line },
            curated: curatedOf({ type: 'message', text: line }),
          });
        if (event.type !== 'tool-request') return events.push({ raw: event, curated: curatedOf(event) });
        const call = (event.call ?? {}) as ToolCall;
        const decision = context.decide(call);
        child.stdin!.write(`${JSON.stringify({ type: 'tool-decision', id: event.id, ...decision })}\n`);
        events.push(decisionEvent(call, decision, event));
      })
      .on('close', closeOne);
    createInterface({ input: child.stderr! })
      .on('line', (line) =>
        events.push({ raw: { type: 'stderr', text: line }, curated: { kind: 'stderr', text: line } }),
      )
      .on('close', closeOne);
    const exit = new Promise<ProviderExit>((resolve) => {
      child.once('error', (error) => {
        events.end();
        resolve({ code: null, signal: null, error });
      });
      child.once('exit', (code, signal) => {
        const exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : null);
        resolve({ code: exitCode, signal });
      });
    });
    let interrupted: Promise<void> | undefined;
    return {
      events,
      exit,
      interrupt: () =>
        (interrupted ??= (async () => {
          await group?.terminate();
          group?.release();
        })()),
    };
  }
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
