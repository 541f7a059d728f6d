/**
 * What the fake daemon's agents do, per step and attempt. An agent's turns are its first message
 * (turn 0) and each follow-up it receives while idle (a reminder or a nudge: turn 1, 2, …); a turn
 * the script does not list ends at once without a report (a silent agent).
 */

export interface ScriptedReport {
  outcome: string;
  summary?: string;
  outputs?: Record<string, unknown>;
}

export interface AgentTurn {
  /** written into the agent's folder at the start of the turn (what an implementer does) */
  write?: { path: string; content: string };
  /** the turn does not go on by itself: it waits until it is canceled, or released by the test */
  hold?: boolean;
  /**
   * called through the MCP server in the agent's `mcpServers` (the real SDK client over Streamable
   * HTTP), in order: a refused report is followed by the next one, as an agent corrects itself
   */
  reports?: ScriptedReport[];
  /** the turn ends with `turn_failed` and this error instead of `turn_completed` */
  fail?: string;
  /** a `permission_requested` event for this tool comes first (the turn then goes on as scripted) */
  asksPermission?: string;
  /** the agent is deleted from the daemon as the turn ends (its end still goes out): a message then finds no agent */
  deleted?: boolean;
  /**
   * tools called through the agent's stdio MCP servers (`startsStdioServers`), in order, each streamed
   * as a timeline `tool_call` named as Claude names it (`mcp__<server>__<tool>`); a string argument
   * "$run" is the run the turn's message names ("You manage playbook run ID", a wake-up's "Playbook
   * run ID:"). Without such a server
   * the calls are skipped (an agent without the tools).
   */
  calls?: { tool: string; args: Record<string, unknown> }[];
}

export interface AgentScript {
  turns: AgentTurn[];
}

/**
 * Scripts by the step's label (`kairoku.step`), one per attempt; past the list, the last repeats. An
 * agent a person made (no step) is played by the script its `fake.script` label names.
 */
export type Scripts = Record<string, AgentScript[]>;

/** Reports once in its first turn. */
export function reports(outcome: string, outputs?: Record<string, unknown>, summary?: string): AgentScript {
  return {
    turns: [{ reports: [{ outcome, ...(outputs ? { outputs } : {}), ...(summary ? { summary } : {}) }] }],
  };
}

/** Ends every turn without a report: silent, then silent after the reminder too. */
export function silent(): AgentScript {
  return { turns: [] };
}

/** Ends its first turn without a report, and reports after the reminder. */
export function reportsWhenReminded(outcome: string, outputs?: Record<string, unknown>): AgentScript {
  return { turns: [{}, { reports: [{ outcome, ...(outputs ? { outputs } : {}) }] }] };
}

/** Works until its turn is canceled (or released, then reports `then` when given). */
export function runsUntilCanceled(then?: ScriptedReport): AgentScript {
  return { turns: [{ hold: true, ...(then ? { reports: [then] } : {}) }] };
}

/** Tries each report in turn within its first turn (a refused one, then a corrected one). */
export function triesReports(...attempts: ScriptedReport[]): AgentScript {
  return { turns: [{ reports: attempts }] };
}

/** Writes a file into its folder, then reports. */
export function writesThenReports(
  path: string,
  outcome: string,
  outputs?: Record<string, unknown>,
): AgentScript {
  return {
    turns: [
      {
        write: { path, content: 'changed by an agent\n' },
        reports: [{ outcome, ...(outputs ? { outputs } : {}) }],
      },
    ],
  };
}
