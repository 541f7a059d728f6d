/**
 * The names of the playbook's MCP tools, apart from their definitions (tools.ts) so that what only
 * needs the names (the Paseo backend pre-approving them for Claude agents) does not load the SDK.
 */

export const MANAGER_TOOLS = [
  'list_playbooks',
  'start_playbook',
  'start_step',
  'complete_step',
  'request_gate',
  'resume',
  'nudge_step',
  'get_run',
  'list_runs',
  'cancel_run',
  'restart_run',
  'validate_playbooks',
] as const;

export const STEP_AGENT_TOOLS = ['report_step_result'] as const;
