/**
 * `@kairoku-playbook/runtime/backends`: the backends whose agents live elsewhere — `paseo` (a Paseo
 * daemon over WebSocket), `kairoku` (the queue Kairoku runner daemons claim from, over HTTP) — and the
 * step agents' MCP report endpoint. A separate entry point, so a program that only checks or
 * simulates (every `kairoku-playbook check`) never loads `ws`, `node:http` or the MCP SDK's HTTP
 * transport at start. The reference runner daemon is not here: it is a client of the Kairoku app, with
 * its own entry point, `@kairoku-playbook/runtime/runner`.
 */
export * as paseo from './paseo/index.js';
export * as kairoku from './kairoku/index.js';
export { reportToken, startReportEndpoint, startSharedReportEndpoint } from './report-endpoint.js';
export { addressKind, resolveBindAddress } from './bind-address.js';
export type { AddressKind, BindCheck, Lookup } from './bind-address.js';
export type {
  ReportBinding,
  ReportEndpoint,
  ReportEndpointOptions,
  ReportHandlers,
  SharedReportEndpoint,
  StepReport,
} from './report-endpoint.js';
