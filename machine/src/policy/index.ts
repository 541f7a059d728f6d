export { matchesPattern, toolPolicyFor } from './decide.js';
export type { DecideToolCall, Decision, PathRules, PolicyContext, ToolCall, ToolName } from './decide.js';
export { TOOL_DENIED, maskSecrets, recordDenial } from './denial.js';
export type { Denial } from './denial.js';
