/**
 * The test kit: what the packages' tests need to run the toolchain as a user does, in one place —
 * temporary folders (removed after the test file's last test) and git repositories, the built CLI as a
 * process, `serve` as a process or in this process on `sim` and calls to its API, the fakes at the edges
 * we own (the Paseo daemon, the Kairoku runner), and real terminals. A test imports it by path
 * (`../../test/kit/index.js`); the kit imports packages by name, never a package's `src/`. How to use
 * it: test/kit/README.md.
 */
export { CLI, REPO, cliOnPath, runCli, runCliBounded } from './cli.js';
export type { BoundedCliResult, CliResult } from './cli.js';
export { gitRepo, removeDir, removeTempDirs, tempDir, workspaceWith, writeFiles } from './temp.js';
export type { GitRepoOptions } from './temp.js';
export { alive, waitFor } from './process.js';
export { buildOnce } from './build.js';
export { hasTool, plain, terminal } from './terminal.js';
export { startServe } from './serve-process.js';
export type { ServeProcess, ServeProcessOptions } from './serve-process.js';
export { BROKEN, prWorkspace, serveOnSim } from './serve-sim.js';
export type { Served } from './serve-sim.js';
export { callServe, openEvents, serveApi } from './serve-api.js';
export type { Answer, ServeApi, SseEvent } from './serve-api.js';
export * from './fake-paseo.js';
export * from './fake-runner.js';
