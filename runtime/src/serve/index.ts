/**
 * `@kairoku-playbook/runtime/serve`: the host of a workspace's runs and its HTTP API (docs/serve.md).
 * A separate entry, so commands that do not serve never load node:http.
 */
export { startServe, CONTENT_SECURITY_POLICY, LOGIN_TTL_MS, sessionCookieName } from './server.js';
export type { ServeOptions, RunningServe } from './server.js';
export { simBackendFor } from './backends.js';
export { RunHost, HOST_MANAGER } from '../host/run-host.js';
export type {
  HostRefusal,
  HostResult,
  Operation,
  RunChange,
  RunHostOptions,
  StartOptions,
} from '../host/run-host.js';
export { DeferredBackend } from '../host/deferred-backend.js';
export { HostingRefused } from '../host/hosting-backend.js';
export type { HostingBackend, OfferedStartOptions } from '../host/hosting-backend.js';
export { hasWorkGoing } from '@kairoku-playbook/machine';
export type * from '@kairoku-playbook/protocol';
export { findServe, removeServeInfo, serveInfoPath, writeServeInfo } from '../store/serve-discovery.js';
export { lockServe } from './serve-lock.js';
export type { ServeLockHolder, ServeLockResult } from './serve-lock.js';
export type { ServeInfo } from '../store/serve-discovery.js';
