/**
 * `@kairoku-playbook/runtime/runner`: the reference Kairoku runner daemon (docs/kairoku-protocol.md), a
 * client of the Kairoku app; `kairoku-playbook runner` loads it and nothing else of the backends.
 */
export { runRunner } from './run-runner.js';
export { EXIT, Runner, backoff } from './runner.js';
export { USAGE, parseRunnerArgs } from './options.js';
export { readToken } from '../backends/kairoku/token-file.js';
export type { RunnerOptions } from './options.js';
export { AppClient, AppRefusal, AppUnreachable, Unauthorized } from './app-client.js';
export { startCapacityServer } from './capacity-server.js';
