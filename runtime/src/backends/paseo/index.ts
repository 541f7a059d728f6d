/** The `paseo` backend (SPEC §6): a run's agent steps as agents of a Paseo daemon. See docs/paseo.md. */
export { PaseoBackend } from './backend.js';
export { LABELS, MAX_TITLE, agentTitle } from './backend-options.js';
export type { CheckExecutor, PaseoBackendOptions, StartCheck } from './backend-options.js';
export {
  APP_VERSION,
  PASEO_PROTOCOL_VERSION,
  PaseoClient,
  PaseoError,
  daemonUrl,
  describeClose,
} from './client.js';
export type {
  Log,
  LogLevel,
  AgentUpdate,
  PaseoClientOptions,
  ReconnectOptions,
  ServerInfo,
  StreamEvent,
} from './client.js';
export { MCP_SERVER_NAME, firstMessage, sourceOf } from './first-message.js';
export type { ReportContract, StartAgent } from './first-message.js';
export { currentBranch, prepareWorktree, runBranch } from './worktree.js';
export type { RunWorktree } from './worktree.js';
export { PaseoHost } from './host.js';
export type { PaseoAgentsOptions, PaseoHostOptions } from './host.js';
export { StoreBackedContext } from './store-context.js';
export type { StoreContextOptions } from './store-context.js';
export { ManagerWaker, wakeUpMessage } from './manager-waker.js';
export type { ManagerStatus, ManagerWakerOptions } from './manager-waker.js';
export {
  MANAGER_BEING_MADE,
  ROLE_LABEL,
  kickoffOf,
  managerAgentOf,
  newManagerName,
  startWithNewManager,
} from './manager-agent.js';
export type { NewManagerRequest, NewManagerResult, StdioServer } from './manager-agent.js';
export { hostPaseoRuns } from './serve-backend.js';
export type { PaseoDaemon, PaseoHostingRequest } from './serve-backend.js';
