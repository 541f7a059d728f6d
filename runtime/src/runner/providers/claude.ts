import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type * as ClaudeSdk from '@anthropic-ai/claude-agent-sdk';
import { ProcessGroup } from '../../exec/process-group.js';
import type { ToolPolicy } from '../../backends/kairoku/protocol.js';
import type { ToolCall } from '@kairoku-playbook/machine';
import { stderrEvent } from './agent-process.js';
import { EventQueue, decisionEvent } from './types.js';
import type { LaunchContext, Launched, Provider, ProviderEvent, ProviderExit } from './types.js';

/** The name the report endpoint's MCP server has in the agent's session: its tools are mcp__kairoku__… */
export const REPORT_SERVER = 'kairoku';

const SDK_PACKAGE = '@anthropic-ai/claude-agent-sdk';
/** how long an interrupt waits for Claude to end its turn before its process group is ended */
const INTERRUPT_WAIT_MS = 1000;

/**
 * The `claude` provider (RF-014): the agent is a Claude Code session driven through the Claude Agent
 * SDK, the only module that imports it. The role's instructions are appended to Claude Code's system
 * prompt, the step's first message is the prompt, the report endpoint is the session's one MCP server
 * (with the dispatch's bearer token, RF-008), and every tool call Claude asks permission for is
 * decided by the one policy function through the SDK's `canUseTool` callback (RF-017): a denial is an
 * event, and Claude is told why.
 */
export class ClaudeProvider implements Provider {
  readonly name = 'claude';

  /** @param executable the Claude Code executable (default: the one the SDK ships) */
  constructor(private readonly executable: string | undefined) {}

  launch(context: LaunchContext): Launched {
    const events = new EventQueue();
    let group: ProcessGroup | undefined;
    let child: ChildProcess | undefined;
    let query: ClaudeSdk.Query | undefined;
    let ended = false;
    let stopping = false;
    const abort = new AbortController();
    let resolveChild!: (value: { code: number | null; signal: NodeJS.Signals | null }) => void;
    const childExit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      resolveChild = resolve;
    });

    const run = async (): Promise<ProviderExit> => {
      let sdk: typeof ClaudeSdk;
      try {
        sdk = await loadSdk();
      } catch (error) {
        return { code: null, signal: null, error: error as Error };
      }
      if (stopping) return { code: null, signal: null, reason: 'stopped before Claude Code started' };
      const agent = context.dispatch.agent!;
      // The agent's process is spawned here, as the leader of its own process group, so the teardown
      // ends whatever it started (RF-010).
      const spawnAgent: SpawnAgent = (spawnOptions) => {
        const started = spawn(spawnOptions.command, spawnOptions.args, {
          cwd: spawnOptions.cwd,
          env: spawnOptions.env as NodeJS.ProcessEnv,
          detached: true,
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        child = started;
        if (started.pid !== undefined) group = new ProcessGroup(started.pid, context.graceMs);
        // Stopped while the SDK was still loading: the agent ends as it starts.
        if (stopping) void group?.terminate();
        createInterface({ input: started.stderr! }).on('line', (line) => events.push(stderrEvent(line)));
        started.once('exit', (code, signal) => resolveChild({ code, signal }));
        started.once('error', () => resolveChild({ code: null, signal: null }));
        return started as unknown as ClaudeSdk.SpawnedProcess;
      };
      const options = sessionOptions(context, events, { abort, executable: this.executable, spawnAgent });
      let result: ClaudeSdk.SDKResultMessage | undefined;
      let failure: string | undefined;
      try {
        query = sdk.query({ prompt: agent.firstMessage, options });
        for await (const message of query) {
          if (message.type === 'result') result = message;
          events.push(curate(message));
        }
      } catch (error) {
        failure = `the Claude Agent SDK: ${(error as Error).message}`;
      } finally {
        ended = true;
      }
      if (!child)
        return { code: null, signal: null, error: new Error(failure ?? 'Claude Code did not start') };
      return exitOf(await childExit, failure, result);
    };
    const exit = run().finally(() => events.end());

    let interrupted: Promise<void> | undefined;
    const interrupt = () =>
      (interrupted ??= (async () => {
        stopping = true;
        if (query && !ended) {
          // Claude ends its turn cleanly if it can; the process group ends either way.
          await Promise.race([query.interrupt().catch(() => undefined), sleep(INTERRUPT_WAIT_MS)]);
        }
        await group?.terminate();
        group?.release();
        abort.abort();
      })());
    return { events, exit, interrupt };
  }
}

type SpawnAgent = NonNullable<ClaudeSdk.Options['spawnClaudeCodeProcess']>;

/**
 * The session's options: the report endpoint its one MCP server, no settings of the machine or the
 * repository, and every tool call Claude asks permission for decided by the one policy function.
 */
function sessionOptions(
  context: LaunchContext,
  events: EventQueue,
  session: { abort: AbortController; executable: string | undefined; spawnAgent: SpawnAgent },
): ClaudeSdk.Options {
  const agent = context.dispatch.agent!;
  return {
    cwd: context.worktree,
    abortController: session.abort,
    // No user, project or local settings: a repository's .claude/settings.json must not widen the
    // role's policy, nor the machine's own MCP servers join the session.
    settingSources: [],
    strictMcpConfig: true,
    mcpServers: {
      [REPORT_SERVER]: {
        type: 'http',
        url: agent.report.url,
        headers: { Authorization: `Bearer ${agent.report.token}` },
      },
    },
    permissionMode: 'default',
    // Claude Code does not ask before every read inside its working directory: a role without a
    // kind of tool does not get its tools at all.
    disallowedTools: disallowedFor(agent.policy),
    canUseTool: (toolName, input) => Promise.resolve(decide(context, events, toolName, input)),
    ...(agent.instructions
      ? { systemPrompt: { type: 'preset', preset: 'claude_code', append: agent.instructions } }
      : {}),
    ...(agent.model ? { model: agent.model } : {}),
    ...(session.executable ? { pathToClaudeCodeExecutable: session.executable } : {}),
    spawnClaudeCodeProcess: session.spawnAgent,
  };
}

/** How the agent ended: its process's exit, failed when the SDK failed or Claude's turn ended in error. */
function exitOf(
  exited: { code: number | null; signal: NodeJS.Signals | null },
  failure: string | undefined,
  result: ClaudeSdk.SDKResultMessage | undefined,
): ProviderExit {
  if (failure) return { ...exited, code: exited.code ?? 1, reason: failure };
  if (!result) return { ...exited, reason: 'Claude Code ended without a result' };
  if (result.subtype !== 'success' || result.is_error)
    return {
      ...exited,
      code: exited.code ?? 1,
      reason: `Claude's turn ended in error (${result.subtype}${'errors' in result && result.errors.length ? `: ${result.errors.join('; ')}` : ''})`,
    };
  return exited;
}

/**
 * Loads the Claude Agent SDK. It is an ES module: imported where the runtime runs as modules, required
 * (Node ≥ 20.19 requires ES modules) from beside the running program where the CLI's single bundle
 * runs it, since a bundled `import()` cannot load it there.
 */
async function loadSdk(): Promise<typeof ClaudeSdk> {
  try {
    return (await import(SDK_PACKAGE)) as typeof ClaudeSdk;
  } catch (first) {
    try {
      return createRequire(process.argv[1] ?? join(process.cwd(), 'runner.js'))(
        SDK_PACKAGE,
      ) as typeof ClaudeSdk;
    } catch {
      throw new Error(
        `the claude provider needs the package ${SDK_PACKAGE} (npm install ${SDK_PACKAGE} beside the runner): ${(first as Error).message}`,
      );
    }
  }
}

/** Claude Code's tools of each kind the policy may take away as a whole. */
const TOOLS_OF: Readonly<Record<'read' | 'edit' | 'write' | 'run' | 'network', readonly string[]>> = {
  read: ['Read', 'Glob', 'Grep', 'LS', 'NotebookRead'],
  edit: ['Edit', 'MultiEdit', 'NotebookEdit'],
  write: ['Write'],
  run: ['Bash'],
  network: ['WebFetch', 'WebSearch'],
};

/** The tools a role may not use at all, by its policy (the rest are decided call by call). */
export function disallowedFor(policy: ToolPolicy): string[] {
  const none = (value: boolean | readonly string[]) =>
    value === false || (Array.isArray(value) && !value.length);
  return (Object.keys(TOOLS_OF) as (keyof typeof TOOLS_OF)[]).flatMap((kind) =>
    none(policy[kind]) ? [...TOOLS_OF[kind]] : [],
  );
}

/** Tools with no effect outside the agent's own session, allowed to every role. */
const SESSION_TOOLS: ReadonlySet<string> = new Set(['TodoWrite']);

/**
 * A Claude Code tool call as the one policy function takes it (RF-017), or a string: why it has no
 * place in the policy (denied). The report endpoint's own tools are always allowed: the runner put
 * them there, and a step can only end by reporting.
 */
export function toolCallOf(toolName: string, input: Record<string, unknown>): ToolCall | 'allow' | string {
  const text = (key: string): string | undefined =>
    typeof input[key] === 'string' ? (input[key] as string) : undefined;
  const mcp = /^mcp__(.+?)__(.+)$/.exec(toolName);
  if (mcp) return mcp[1] === REPORT_SERVER ? 'allow' : { tool: 'mcp', server: mcp[1]! };
  if (SESSION_TOOLS.has(toolName)) return 'allow';
  switch (toolName) {
    case 'Read':
      return { tool: 'read', path: text('file_path') ?? '' };
    case 'NotebookRead':
      return { tool: 'read', path: text('notebook_path') ?? '' };
    case 'Glob':
    case 'Grep':
    case 'LS':
      return { tool: 'read', path: text('path') ?? '.' };
    case 'Edit':
    case 'MultiEdit':
      return { tool: 'edit', path: text('file_path') ?? '' };
    case 'NotebookEdit':
      return { tool: 'edit', path: text('notebook_path') ?? '' };
    case 'Write':
      return { tool: 'write', path: text('file_path') ?? '' };
    case 'Bash':
      return { tool: 'run', command: text('command') ?? '' };
    case 'WebFetch':
    case 'WebSearch':
      return { tool: 'network' };
    default:
      return `the runner's tool policy has no place for the tool ${toolName}: denied`;
  }
}

function decide(
  context: LaunchContext,
  events: EventQueue,
  toolName: string,
  input: Record<string, unknown>,
): ClaudeSdk.PermissionResult {
  const raw = { type: 'can_use_tool', tool_name: toolName, input };
  const call = toolCallOf(toolName, input);
  if (call === 'allow') {
    events.push({ raw: { ...raw, decision: 'allow' } });
    return { behavior: 'allow', updatedInput: input };
  }
  if (typeof call === 'string') {
    events.push({
      raw: { ...raw, decision: 'deny' },
      curated: { kind: 'denial', text: call, tool: toolName },
    });
    return { behavior: 'deny', message: call };
  }
  const decision = context.decide(call);
  const event = decisionEvent(call, decision, { ...raw, decision: decision.decision }, toolName);
  // An allowed call is already a curated tool-call (the assistant's tool_use); only denials add one.
  events.push(decision.decision === 'deny' ? event : { raw: event.raw });
  return decision.decision === 'allow'
    ? { behavior: 'allow', updatedInput: input }
    : { behavior: 'deny', message: `The runner's tool policy denied this call: ${decision.reason}` };
}

/** What the app is shown of one SDK message (RF-023's kinds); the message itself goes to the log. */
function curate(message: ClaudeSdk.SDKMessage): ProviderEvent {
  const raw = message as unknown as Record<string, unknown>;
  switch (message.type) {
    case 'system':
      if (message.subtype === 'init')
        return {
          raw,
          curated: {
            kind: 'phase',
            text: `Claude Code ${message.claude_code_version} started (model ${message.model}; MCP: ${message.mcp_servers.map((s) => `${s.name} ${s.status}`).join(', ') || 'none'})`,
          },
        };
      return { raw };
    case 'assistant': {
      const parts: string[] = [];
      const tools: { name: string; input: unknown }[] = [];
      for (const block of message.message.content as unknown as Record<string, unknown>[]) {
        if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
        if (block.type === 'tool_use') tools.push({ name: String(block.name), input: block.input });
      }
      if (tools.length)
        return {
          raw,
          curated: {
            kind: 'tool-call',
            text: tools.map((t) => `${t.name} ${summarize(t.input)}`).join('; '),
            tool: tools[0]!.name,
          },
        };
      if (parts.length) return { raw, curated: { kind: 'message', text: parts.join('\n') } };
      return { raw };
    }
    case 'user': {
      const content = (message.message as { content?: unknown }).content;
      if (!Array.isArray(content)) return { raw };
      const results = (content as Record<string, unknown>[]).filter((b) => b.type === 'tool_result');
      if (!results.length) return { raw };
      const text = results.map((r) => `${r.is_error ? 'error: ' : ''}${resultText(r.content)}`).join('; ');
      return { raw, curated: { kind: 'tool-result', text } };
    }
    case 'result':
      return {
        raw,
        curated: {
          kind: 'status',
          text:
            message.subtype === 'success' && !message.is_error
              ? `Claude's turn ended after ${message.num_turns} turns`
              : `Claude's turn ended in error (${message.subtype})`,
        },
      };
    default:
      return { raw };
  }
}

function summarize(input: unknown): string {
  if (input && typeof input === 'object') {
    const record = input as Record<string, unknown>;
    for (const key of ['command', 'file_path', 'path', 'pattern', 'url', 'notebook_path'])
      if (typeof record[key] === 'string') return JSON.stringify(record[key]);
  }
  return '';
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((c) =>
        c && typeof c === 'object' && typeof (c as Record<string, unknown>).text === 'string'
          ? (c as Record<string, string>).text
          : '',
      )
      .join(' ');
  return '';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
