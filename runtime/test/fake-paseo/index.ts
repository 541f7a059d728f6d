/**
 * The fake Paseo daemon, for this package's tests and for the CLI's (`kairoku-playbook run --backend
 * paseo --paseo-host <daemon.host>`): start it in-process with `FakePaseoDaemon.start({ scripts })`.
 */
export { FakePaseoDaemon } from './daemon.js';
export type { FakeAgent, FakePaseoOptions, ReceivedRequest, ReportCall } from './daemon.js';
export {
  reports,
  reportsWhenReminded,
  runsUntilCanceled,
  silent,
  triesReports,
  writesThenReports,
} from './scripts.js';
export type { AgentScript, AgentTurn, ScriptedReport, Scripts } from './scripts.js';
