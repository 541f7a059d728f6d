/**
 * The fake Kairoku runner and its app: the Kairoku backend listening (`startApp`), a run on it, a runner
 * speaking the protocol by hand in this process (`HandRunner`), and the reference runner as a process
 * running the fake agent (`spawnRunner`). The implementation stays beside the backend it serves
 * (runtime/test/fixtures/kairoku/); tests import it from here.
 */
export {
  APP_TOKEN,
  FAKE_AGENT,
  HandRunner,
  RUNNER_MAIN,
  RUNTIME,
  ensureRunnerBuilt,
  history,
  post,
  runnerLog,
  spawnRunner,
  startApp,
  startRun,
  stopRunners,
  writeScript,
} from '../../runtime/test/fixtures/kairoku/harness.js';
export type { RunnerProcess } from '../../runtime/test/fixtures/kairoku/harness.js';
