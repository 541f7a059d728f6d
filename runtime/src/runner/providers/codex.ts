import type { Decision, ToolCall } from '@kairoku-playbook/machine';
import { REPORT_SERVER } from './claude.js';
import { spawnAgent } from './agent-process.js';
import { decisionEvent } from './types.js';
import type { LaunchContext, Launched, Provider, ProviderEvent } from './types.js';

/** the environment variable codex reads the report endpoint's bearer token from */
export const REPORT_TOKEN_ENV = 'KAIROKU_REPORT_TOKEN';

/**
 * The `codex` provider (RF-014): the agent is `codex exec --json`, one turn, its JSONL events on
 * stdout. `codex exec` has no permission callback, so the tool policy (RF-017) is applied twice: as
 * codex's own sandbox, chosen from the role (`workspace-write` for a role that may edit or write,
 * `read-only` otherwise; network access only where the policy allows it), and by the one policy
 * function over every command, file change, MCP call and web search codex reports. A call the policy
 * denies is a denial event and ends the agent (fail closed: codex has already started it, so it
 * cannot be refused the way Claude's are), as does one codex's own sandbox declined.
 */
export class CodexProvider implements Provider {
  readonly name = 'codex';

  constructor(private readonly executable: string) {}

  launch(context: LaunchContext): Launched {
    const agent = context.dispatch.agent!;
    const policy = agent.policy;
    const args = [
      'exec',
      '--json',
      '--cd',
      context.worktree,
      '--sandbox',
      policy.edit || policy.write ? 'workspace-write' : 'read-only',
      '-c',
      'approval_policy="never"',
      '-c',
      `sandbox_workspace_write.network_access=${policy.network ? 'true' : 'false'}`,
      '-c',
      `mcp_servers.${REPORT_SERVER}.url=${JSON.stringify(agent.report.url)}`,
      '-c',
      `mcp_servers.${REPORT_SERVER}.bearer_token_env_var=${JSON.stringify(REPORT_TOKEN_ENV)}`,
      ...(agent.model ? ['--model', agent.model] : []),
      // the prompt, read from stdin
      '-',
    ];
    let failure: string | undefined;
    const decided = new Set<string>();
    const { child, events, exit, interrupt } = spawnAgent({
      command: this.executable,
      args,
      cwd: context.worktree,
      graceMs: context.graceMs,
      env: { ...process.env, [REPORT_TOKEN_ENV]: agent.report.token },
      reason: () => failure,
      onLine: (line, raw) => {
        if (!raw)
          return events.push({
            raw: { type: 'stdout', text: line },
            curated: { kind: 'message', text: line },
          });
        for (const event of curate(raw, context, decided)) {
          events.push(event);
          if (event.curated?.kind === 'denial' && !failure) {
            failure = `${event.curated.text} (RF-017): the agent was stopped`;
            // Started here; awaited by the runner's teardown (interrupt returns the same promise again).
            void interrupt();
          }
        }
        if (raw.type === 'turn.failed' || raw.type === 'error') failure ??= `codex: ${errorText(raw)}`;
      },
    });
    // codex has no system prompt flag for one run: the role's instructions lead the prompt.
    child.stdin!.end(
      agent.instructions ? `${agent.instructions}\n\n---\n\n${agent.firstMessage}` : agent.firstMessage,
    );
    return { events, exit, interrupt };
  }
}

interface Item {
  id?: string;
  type?: string;
  text?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  status?: string;
  changes?: { path?: string; kind?: string }[];
  server?: string;
  tool?: string;
  query?: string;
  message?: string;
}

/** What one `codex exec --json` event means to the runner: its events, raw and curated. */
function curate(raw: Record<string, unknown>, context: LaunchContext, decided: Set<string>): ProviderEvent[] {
  switch (raw.type) {
    case 'thread.started':
      return [{ raw, curated: { kind: 'phase', text: `codex thread ${String(raw.thread_id)} started` } }];
    case 'turn.completed': {
      const usage = (raw.usage ?? {}) as Record<string, unknown>;
      return [
        {
          raw,
          curated: {
            kind: 'status',
            text: `codex's turn ended (${Number(usage.input_tokens ?? 0)} tokens in, ${Number(usage.output_tokens ?? 0)} out)`,
          },
        },
      ];
    }
    case 'turn.failed':
    case 'error':
      return [{ raw, curated: { kind: 'status', text: `codex failed: ${errorText(raw)}` } }];
    case 'item.started':
    case 'item.updated':
    case 'item.completed':
      return itemEvents(raw, (raw.item ?? {}) as Item, raw.type === 'item.completed', context, decided);
    default:
      return [{ raw }];
  }
}

function itemEvents(
  raw: Record<string, unknown>,
  item: Item,
  completed: boolean,
  context: LaunchContext,
  decided: Set<string>,
): ProviderEvent[] {
  const out: ProviderEvent[] = [];
  const key = item.id ?? JSON.stringify(item);
  const first = !decided.has(key);
  decided.add(key);
  const calls = callsOf(item);
  if (item.status === 'declined' && completed)
    return [
      {
        raw,
        curated: {
          kind: 'denial',
          text: `${item.command ?? item.type} declined by codex's sandbox`,
          tool: item.type === 'command_execution' ? 'run' : String(item.type),
        },
      },
    ];
  if (first)
    for (const [call, tool] of calls) {
      const decision: Decision = call === 'allow' ? { decision: 'allow' } : context.decide(call);
      if (call !== 'allow') out.push(decisionEvent(call, decision, raw, tool));
    }
  if (completed) {
    if (item.type === 'agent_message' && item.text)
      out.push({ raw, curated: { kind: 'message', text: item.text } });
    else if (item.type === 'command_execution')
      out.push({
        raw,
        curated: {
          kind: 'tool-result',
          text: `${item.command ?? ''} exited ${item.exit_code ?? '?'}${item.aggregated_output ? `: ${item.aggregated_output}` : ''}`,
          tool: 'run',
        },
      });
    else if (item.type === 'mcp_tool_call')
      out.push({
        raw,
        curated: { kind: 'tool-result', text: `${item.server}.${item.tool}: ${item.status}`, tool: 'mcp' },
      });
    else if (item.type === 'error' && item.message)
      out.push({ raw, curated: { kind: 'status', text: `codex: ${item.message}` } });
  }
  if (!out.length) out.push({ raw });
  // Every event carries the raw line once; the others only what was decided.
  return out.map((event, index) =>
    index === 0 ? { ...event, raw } : { ...event, raw: { type: 'derived', from: key } },
  );
}

/** The policy calls an item stands for, with the tool name its curated event carries. */
function callsOf(item: Item): [ToolCall | 'allow', string][] {
  switch (item.type) {
    case 'command_execution':
      return [[{ tool: 'run', command: item.command ?? '' }, 'run']];
    case 'file_change':
      return (item.changes ?? []).map((change) => [
        { tool: change.kind === 'update' ? 'edit' : 'write', path: change.path ?? '' },
        change.kind === 'update' ? 'edit' : 'write',
      ]);
    case 'mcp_tool_call':
      return [[item.server === REPORT_SERVER ? 'allow' : { tool: 'mcp', server: item.server ?? '' }, 'mcp']];
    case 'web_search':
      return [[{ tool: 'network' }, 'network']];
    default:
      return [];
  }
}

function errorText(raw: Record<string, unknown>): string {
  const error = raw.error as Record<string, unknown> | undefined;
  if (error && typeof error.message === 'string') return error.message;
  if (typeof raw.message === 'string') return raw.message;
  return 'an error';
}
