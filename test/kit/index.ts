/**
 * The test kit: what the packages' tests need to run the toolchain as a user does, in one place —
 * temporary folders (removed when the test process ends), the built CLI as a process, `serve` as a
 * process (its URLs and API token), and the fakes at the edges we own (the Paseo daemon). A test imports
 * it by path (`../../test/kit/index.js`); it imports no package's `src/`.
 */
export { CLI, REPO, runCli } from './cli.js';
export type { CliResult } from './cli.js';
export { tempDir, workspaceWith } from './temp.js';
export { startServe } from './serve-process.js';
export type { ServeProcess, ServeProcessOptions } from './serve-process.js';
export { FakePaseoDaemon } from '../../runtime/test/fake-paseo/index.js';
