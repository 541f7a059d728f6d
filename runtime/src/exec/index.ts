/**
 * The check-step executor (SPEC §3.1 `run`) shared by the `paseo` and `kairoku` backends: commands in
 * process groups, bounded and masked output, test counts off the runners' summaries.
 */
export {
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_OUTPUT_LIMIT_BYTES,
  EXIT_NOT_STARTED,
  SUMMARY_LIMIT_BYTES,
  killAllChecks,
  runCheckCommands,
} from './run-commands.js';
export type { CheckOutputs, CheckRun, RunCommandsOptions } from './run-commands.js';
export { checkDirectory, checkHandle, performCheck } from './perform-check.js';
export type { PerformCheckOptions, RunningCheck, StartCheck } from './perform-check.js';
export { CheckRunner } from './check-runner.js';
export type { CheckRunnerOptions } from './check-runner.js';
export { CountReader, parseCounts, stripAnsi } from './counts/index.js';
export type { Counts } from './counts/index.js';
