import type { ToolCall } from '@kairoku-playbook/machine';
import { curatedOf } from '../event-log.js';
import { spawnAgent } from './agent-process.js';
import { decisionEvent } from './types.js';
import type { LaunchContext, Launched, Provider } from './types.js';

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
    const { child, events, exit, interrupt } = spawnAgent({
      command: this.command,
      shell: true,
      cwd: context.worktree,
      graceMs: context.graceMs,
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
      onLine: (line, event) => {
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
      },
    });
    return { events, exit, interrupt };
  }
}
