import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { PlaybookProtocol } from './protocol.js';
import { ToolError } from './tool-error.js';
import { askServe, serveOf, serveOwning, servePlaybook, toolServeRequest } from './through-serve.js';

/**
 * The 13 tools of the manager protocol (seed 000) as MCP tools: inputs as zod schemas with
 * descriptions, results as JSON text, refusals as tool errors (`isError: true`) whose message says
 * what to do instead.
 */

const run = z
  .string()
  .min(1)
  .describe('The run id, as start_playbook or list_runs gave it (e.g. "pr-3a9c1f").');
const step = z
  .string()
  .min(1)
  .describe('The step name as the playbook declares it; an after-task is "after.NAME".');
const outputs = z
  .record(z.string(), z.unknown())
  .describe("The step's typed outputs, by name; they must fit the output types the step declares.");

/** Runs a tool's work and turns its value into a result, a refusal into a tool error. */
function answer(work: () => Record<string, unknown> | string): CallToolResult {
  try {
    const value = work();
    return {
      content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
    };
  } catch (error) {
    return refusal(error);
  }
}

const answer_ = (value: Record<string, unknown>) => answer(() => value);

/**
 * A run-changing tool's call on a run a live `serve` drives: asked of serve (the only writer of its
 * runs) through its API, answered with the run as serve has it then; undefined for every other run.
 */
function throughServe(
  protocol: PlaybookProtocol,
  tool: 'resume' | 'nudge_step' | 'cancel_run' | 'restart_run',
  args: { run: string } & Record<string, unknown>,
): Promise<CallToolResult> | undefined {
  const serve = serveOwning(protocol.store, protocol.workspace, args.run);
  if (!serve) return undefined;
  const { path, body } = toolServeRequest(tool, args);
  return askServe(serve, path, body).then(
    (detail) => {
      const run = detail.run as { id: string; status: string } | undefined;
      return answer_({
        run: run?.id ?? args.run,
        status: run?.status,
        drivenBy: `kairoku-playbook serve at ${serve.url}`,
        next: 'get_run shows the run as serve drives it on',
      });
    },
    (error: unknown) => refusal(error),
  );
}

function refusal(error: unknown): CallToolResult {
  const message =
    error instanceof ToolError
      ? error.message
      : `kairoku-playbook failed: ${(error as Error).message ?? String(error)}`;
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/**
 * A tool call on a run: first the run is made ready on this server (`PlaybookProtocol.prepare`: a
 * run whose agents are Paseo agents gets its backend connected, asynchronously, never under the
 * store's lock), then the call's synchronous work. `required`: a run that cannot be made ready is
 * refused; otherwise why it could not is a warning in the result.
 */
async function onRun(
  protocol: PlaybookProtocol,
  run: string,
  required: boolean,
  work: () => Record<string, unknown>,
): Promise<CallToolResult> {
  let warning: string | undefined;
  try {
    warning = await protocol.prepare(run, required);
  } catch (error) {
    return refusal(error);
  }
  return answer(() => withWarning(work(), warning));
}

function withWarning(result: Record<string, unknown>, warning: string | undefined): Record<string, unknown> {
  if (warning === undefined) return result;
  const warnings = Array.isArray(result.warnings) ? (result.warnings as unknown[]) : [];
  return { ...result, warnings: [...warnings, warning] };
}

/** The manager protocol's tools, in the order clients list them. */
export function registerManagerTools(server: McpServer, protocol: PlaybookProtocol): void {
  registerPlaybookTools(server, protocol);
  registerStepTools(server, protocol);
  registerGateTools(server, protocol);
  registerRunTools(server, protocol);
  server.registerTool(
    'validate_playbooks',
    {
      description:
        "Validates this workspace's playbooks with the same checks as kairoku-playbook check and the panel; prints the diagnostics as check --format json does (a JSON array; [] when clean).",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () => answer(() => protocol.validatePlaybooks()),
  );
}

/** list_playbooks, start_playbook */
function registerPlaybookTools(server: McpServer, protocol: PlaybookProtocol): void {
  server.registerTool(
    'list_playbooks',
    {
      description:
        "Lists this workspace's playbooks (id, title, file, typed inputs, steps) and explains the manager protocol. Playbooks with errors are listed with them and cannot start.",
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    () => answer(() => protocol.listPlaybooks()),
  );

  server.registerTool(
    'start_playbook',
    {
      description:
        "Creates a run of a playbook with you as its manager and starts it: the steps that need nothing become ready. Inputs are checked against the playbook's typed inputs (defaults applied). Refused while another run is active in this workspace, or when the playbook's limits.concurrency is reached.",
      inputSchema: {
        playbook: z.string().min(1).describe('The playbook id (or its file), from list_playbooks.'),
        inputs: z
          .record(z.string(), z.unknown())
          .optional()
          .describe(
            'The run inputs by name, typed as the playbook declares them (list_playbooks shows them).',
          ),
      },
    },
    (args) => startPlaybook(protocol, args),
  );
}

/**
 * start_playbook: through the live `serve` of the workspace when one is up (it owns the workspace's
 * runs), else started here; a run whose agents are Paseo agents is hosted at once.
 */
async function startPlaybook(
  protocol: PlaybookProtocol,
  args: { playbook: string; inputs?: Record<string, unknown> | undefined },
): Promise<CallToolResult> {
  const serve = serveOf(protocol.store, protocol.workspace);
  if (serve) {
    // serve owns the workspace's runs: the run is started there, and driven there (autopilot).
    try {
      const playbook = servePlaybook(protocol.workspace, args.playbook) ?? args.playbook;
      const answer = await askServe(serve, '/api/v1/runs', { playbook, inputs: args.inputs ?? {} });
      const run = answer.run as { id: string; status: string };
      return answer_({
        run: run.id,
        status: run.status,
        warnings: answer.warnings,
        drivenBy: `kairoku-playbook serve at ${serve.url}`,
        next: `serve drives run ${run.id} itself (its steps start and their reports are applied as reported): get_run follows it; decide its gates with resume, or in the panel`,
      });
    } catch (error) {
      return refusal(error);
    }
  }
  let started: Record<string, unknown>;
  try {
    started = protocol.startPlaybook(args);
  } catch (error) {
    return refusal(error);
  }
  // A run whose agents are Paseo agents is hosted at once (a new worktree is made now).
  const run = typeof started.run === 'string' ? started.run : undefined;
  const warning = run === undefined ? undefined : await protocol.prepare(run, false);
  return answer(() => withWarning(started, warning));
}

/** start_step, complete_step */
function registerStepTools(server: McpServer, protocol: PlaybookProtocol): void {
  server.registerTool(
    'start_step',
    {
      description:
        'Starts a ready agent or check step (or an after-task of an ended run) with your brief for its agent. Refused unless the step is ready. Gates are opened with request_gate instead.',
      inputSchema: {
        run,
        step,
        brief: z
          .string()
          .optional()
          .describe(
            "Your brief for the step's agent: what to focus on, given what you know so far. Given with the step's prompt, inputs and loop feedback.",
          ),
      },
    },
    (args) => onRun(protocol, args.run, true, () => protocol.startStep(args)),
  );

  server.registerTool(
    'complete_step',
    {
      description:
        "Records your decision on a step that has reported: its outcome (the reported one, or another the step declares), and applies that outcome's transition (next, fail, end, retry or a loop back up the graph). Returns what is ready next, a gate to open, or the end of the run.",
      inputSchema: {
        run,
        step,
        outcome: z.string().min(1).describe('One of the outcomes the step declares (get_run lists them).'),
      },
    },
    (args) => onRun(protocol, args.run, false, () => protocol.completeStep(args)),
  );
}

/** request_gate, resume */
function registerGateTools(server: McpServer, protocol: PlaybookProtocol): void {
  server.registerTool(
    'request_gate',
    {
      description:
        'Opens a ready gate with a summary for the human, who decides in the panel (or tells you in chat: then call resume). End your turn after opening it.',
      inputSchema: {
        run,
        step: z.string().min(1).describe('The gate step to open.'),
        summary: z
          .string()
          .optional()
          .describe(
            "What the human needs to know to decide; default: the gate's own summary from the playbook.",
          ),
      },
    },
    (args) => onRun(protocol, args.run, false, () => protocol.requestGate(args)),
  );

  server.registerTool(
    'resume',
    {
      description:
        "Records a decision on an open gate that the human gave you in chat, and applies the choice's transition. Choices with a required comment need one.",
      inputSchema: {
        run,
        step: z.string().min(1).describe('The open gate.'),
        choice: z.string().min(1).describe('One of the choices the gate declares (get_run lists them).'),
        comment: z
          .string()
          .optional()
          .describe("The human's comment, in their words (required by some choices)."),
      },
    },
    (args) =>
      throughServe(protocol, 'resume', args) ?? onRun(protocol, args.run, false, () => protocol.resume(args)),
  );
}

/** nudge_step, get_run, list_runs, cancel_run, restart_run */
function registerRunTools(server: McpServer, protocol: PlaybookProtocol): void {
  server.registerTool(
    'nudge_step',
    {
      description: "Sends a follow-up to a running step's agent, in the same conversation.",
      inputSchema: { run, step, text: z.string().min(1).describe('The follow-up message for the agent.') },
    },
    (args) =>
      throughServe(protocol, 'nudge_step', args) ??
      onRun(protocol, args.run, false, () => protocol.nudgeStep(args)),
  );

  server.registerTool(
    'get_run',
    {
      description:
        "Shows a run: its status, every step with its attempts, reports, outputs and open gate, loop counts, the run's outputs, recent history, and what can be done next.",
      inputSchema: { run },
      annotations: { readOnlyHint: true },
    },
    (args) => onRun(protocol, args.run, false, () => protocol.getRun(args)),
  );

  server.registerTool(
    'list_runs',
    {
      description:
        'Lists the unarchived runs (active ones first) with their workspace, branch, manager and status; ended runs with the steps they can restart from. With archived: true, archived runs too.',
      inputSchema: {
        archived: z.boolean().optional().describe('Also list archived runs (which restart_run can reopen).'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => answer(() => protocol.listRuns(args)),
  );

  server.registerTool(
    'cancel_run',
    {
      description:
        'Cancels a run and stops its running steps. On an ended run, cancels its running after-tasks.',
      inputSchema: { run, reason: z.string().optional().describe('Why, for the run history.') },
      annotations: { destructiveHint: true },
    },
    (args) =>
      throughServe(protocol, 'cancel_run', args) ??
      onRun(protocol, args.run, false, () => protocol.cancelRun(args)),
  );

  server.registerTool(
    'restart_run',
    {
      description:
        'Reopens an ended (or archived) run from a step whose needs completed: that step and everything after it run again, with you as manager; completed steps before it keep their outputs.',
      inputSchema: {
        run,
        step: z.string().min(1).describe('The step to restart from (list_runs shows the candidates).'),
      },
    },
    (args) =>
      throughServe(protocol, 'restart_run', args) ??
      onRun(protocol, args.run, true, () => protocol.restartRun(args)),
  );
}

/**
 * `report_step_result` on the manager's server (`--with-step-tools`): for tests and harnesses that
 * play the step agents themselves. Never give such a server to a step agent.
 */
export function registerReportTool(server: McpServer, protocol: PlaybookProtocol): void {
  server.registerTool(
    'report_step_result',
    {
      description:
        "Reports a running step's result as its agent would: an outcome the step declares, a summary, and outputs that fit its output types. The step then waits for the manager's complete_step.",
      inputSchema: {
        run,
        step,
        attempt: z.number().int().positive().describe('The attempt being reported (start_step gave it).'),
        outcome: z.string().min(1).describe('One of the outcomes the step declares.'),
        summary: z.string().optional().describe('What was done, in a few sentences.'),
        outputs: outputs.optional(),
      },
    },
    (args) => answer(() => protocol.reportStepResult(args)),
  );
}

export interface StepBinding {
  run: string;
  step: string;
  attempt: number;
  /** the step's declared outcomes and outputs, for the tool's description */
  outcomes: string[];
  outputs: string[];
}

/** A step agent's only tool: `report_step_result`, bound to one run, step and attempt. */
export function registerStepAgentTool(
  server: McpServer,
  protocol: PlaybookProtocol,
  binding: StepBinding,
): void {
  const what = `step "${binding.step}" of run ${binding.run} (attempt ${binding.attempt})`;
  server.registerTool(
    'report_step_result',
    {
      description:
        `Reports the result of ${what}, then end your turn. ` +
        `outcome: one of ${binding.outcomes.join(', ')}. ` +
        `outputs: ${binding.outputs.length ? binding.outputs.join(', ') : 'none'}.`,
      inputSchema: {
        outcome: z
          .string()
          .min(1)
          .describe(`One of: ${binding.outcomes.join(', ')}.`),
        summary: z
          .string()
          .optional()
          .describe('What you did and found, in a few sentences, for the manager.'),
        outputs: outputs.optional(),
        run: run.optional().describe(`Optional; this server reports for run ${binding.run} only.`),
        step: step.optional().describe(`Optional; this server reports for step ${binding.step} only.`),
        attempt: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Optional; this server reports for attempt ${binding.attempt} only.`),
      },
    },
    (args) =>
      answer(() => {
        const other =
          (args.run !== undefined && args.run !== binding.run) ||
          (args.step !== undefined && args.step !== binding.step) ||
          (args.attempt !== undefined && args.attempt !== binding.attempt);
        if (other)
          throw new ToolError(
            `this server reports for ${what} only, not for ${args.step ?? binding.step} of ${args.run ?? binding.run} (attempt ${args.attempt ?? binding.attempt}); report your own step, or leave run, step and attempt out`,
          );
        protocol.reportStepResult({
          run: binding.run,
          step: binding.step,
          attempt: binding.attempt,
          outcome: args.outcome,
          summary: args.summary,
          outputs: args.outputs,
        });
        return {
          recorded: true,
          run: binding.run,
          step: binding.step,
          attempt: binding.attempt,
          outcome: args.outcome,
          next: 'End your turn now: the manager reads your report and decides what happens next.',
        };
      }),
  );
}
