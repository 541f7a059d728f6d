/**
 * `@kairoku-playbook/runtime/mcp`: the manager protocol (SPEC §6, seed 000) served over MCP. A
 * separate entry point, so programs that do not serve MCP never load the MCP SDK.
 */
export { serveMcp } from './server.js';
export { GuardedStdioTransport, MAX_MCP_MESSAGE_BYTES } from './stdio-transport.js';
export type { RunningServer, ServeOptions } from './server.js';
export { PlaybookProtocol } from './protocol.js';
export type { ProtocolOptions } from './protocol.js';
export { ProtocolBackend, BACKEND_OF } from './backend.js';
export type { AgentMode } from './backend.js';
export { MANAGER_TOOLS, STEP_AGENT_TOOLS } from '../backends/mcp-tool-names.js';
export { MANAGER_GUIDE } from '../backends/manager-guide.js';
export { ToolError } from './tool-error.js';
export { STEP_TOKEN_VARIABLE, stepAgentToken, checkStepAgentToken } from '../store/step-token.js';
export { readWorkspace, snapshotOf, validationJson, workspaceLoader } from './workspace.js';
export type { WorkspacePlaybook, WorkspaceSnapshot } from './workspace.js';
