import { MANAGER_TOOLS, STEP_AGENT_TOOLS } from '../mcp-tool-names.js';
import { MCP_SERVER_NAME } from './first-message.js';

/**
 * Seed 000: "the plugin pre-approves its own tools, so agents in default mode are not stopped by a
 * permission prompt on them". For Claude agents the daemon passes `config.extra.claude` on to the
 * Claude Agent SDK's options (getpaseo/paseo f3de5689, packages/server/src/server/agent/providers/
 * claude-agent.ts, `...extraClaudeOptions` in the query options; packages/server/src/shared/messages.ts,
 * `extra.claude` of the session config), and the SDK allows the tools of `allowedTools` without asking.
 * The list names exactly the tools this agent's MCP server exposes (`mcp__<server>__<tool>`). Other
 * providers get nothing: the daemon passes no such list on for them.
 */
export function preApprovedTools(provider: string, who: 'manager' | 'step'): Record<string, unknown> {
  if (provider !== 'claude') return {};
  const tools = who === 'manager' ? MANAGER_TOOLS : STEP_AGENT_TOOLS;
  return { extra: { claude: { allowedTools: tools.map((tool) => `mcp__${MCP_SERVER_NAME}__${tool}`) } } };
}
