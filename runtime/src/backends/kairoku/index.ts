/** The `kairoku` backend: the app side of the Kairoku runner protocol, v1 (docs/kairoku-protocol.md). */
export { KairokuBackend } from './backend.js';
export type { DispatchEnd, DispatchView, KairokuBackendOptions, RunnerView } from './backend.js';
export { buildDispatch, dispatchFirstMessage } from './dispatch.js';
export type { RunTarget } from './dispatch.js';
export { startKairokuServer } from './server.js';
export type { KairokuServer, ProtocolHandler } from './server.js';
export { ReadyQueue } from './ready-queue.js';
export * from './protocol.js';
export { SCHEMAS, SCHEMA_BASE } from './schemas.js';
