/** The `kairoku` backend: the app side of the Kairoku runner protocol, v1 (docs/kairoku-protocol.md). */
export { KairokuBackend } from './backend.js';
export type { KairokuBackendOptions, ListenOptions } from './backend.js';
export type { DispatchEnd, DispatchView, RunnerView } from './records.js';
export { fingerprintOf, makeSelfSigned, normalizeFingerprint, pemOf, selfSignedIdentity } from './tls.js';
export type { TlsIdentity } from './tls.js';
export { buildDispatch, dispatchFirstMessage } from './dispatch.js';
export type { RunTarget } from './dispatch.js';
export { startKairokuServer } from './server.js';
export type { KairokuServer, KairokuServerOptions, ProtocolHandler } from './server.js';
export { ReadyQueue } from './ready-queue.js';
export * from './protocol.js';
export { SCHEMAS, SCHEMA_BASE } from './schemas.js';
export { loadAppToken } from './app-token.js';
export { hostKairokuRuns } from './serve-backend.js';
export type { KairokuHostingRequest } from './serve-backend.js';
