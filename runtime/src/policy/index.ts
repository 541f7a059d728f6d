export { decideToolCall, matchesPattern } from './decide.js';
export type { Decision, PolicyContext, ToolCall, ToolName } from './decide.js';
export { TOOL_DENIED, maskSecrets, recordDenial } from './denial.js';
export type { Denial } from './denial.js';
