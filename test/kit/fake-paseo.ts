/**
 * The fake Paseo daemon and what drives it, in one place: the daemon (start it in-process with
 * `FakePaseoDaemon.start({ scripts })`) and its agent scripts, a run on the paseo backend in this process
 * (`PaseoRun`), and the built CLI's `serve --backend paseo` for the CLI's tests. The daemon's
 * implementation stays beside the backend it fakes (runtime/test/fake-paseo/); tests import it from here.
 */
import type { ChildProcess } from 'node:child_process';
import { startServe } from './serve-process.js';
import type { ServeProcess } from './serve-process.js';

export { FakePaseoDaemon } from '../../runtime/test/fake-paseo/daemon.js';
export type {
  FakeAgent,
  FakePaseoOptions,
  ReceivedRequest,
  ReportCall,
} from '../../runtime/test/fake-paseo/daemon.js';
export {
  reports,
  reportsWhenReminded,
  runsUntilCanceled,
  silent,
  triesReports,
  writesThenReports,
} from '../../runtime/test/fake-paseo/scripts.js';
export type {
  AgentScript,
  AgentTurn,
  ScriptedReport,
  Scripts,
} from '../../runtime/test/fake-paseo/scripts.js';
export { PaseoRun, scriptedChecks } from '../../runtime/test/fake-paseo/harness.js';
export type { PaseoRunOptions } from '../../runtime/test/fake-paseo/harness.js';

/**
 * The built CLI's `serve --backend paseo` (`startServe`) with `extra` arguments, in this process's
 * environment without `PASEO_HOST`, and without `PASEO_PASSWORD` unless `env` gives one; resolves once it
 * prints its login URL. The child is pushed onto `children`.
 */
export async function startPaseoServe(
  children: ChildProcess[],
  workspace: string,
  home: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServeProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (env.PASEO_PASSWORD === undefined) delete childEnv.PASEO_PASSWORD;
  delete childEnv.PASEO_HOST;
  const served = await startServe({ workspace, home, args: ['--backend', 'paseo', ...extra], env: childEnv });
  children.push(served.child);
  return served;
}

/**
 * The small playbook the serve-paseo tests run: `plan`, then `work` (with `retries` when given), then,
 * with `gate`, the gate `ship` (approve: next, reject: fail); `work: false` keeps `plan` alone.
 */
export function relayPlaybook(options: { work?: boolean; retries?: number; gate?: boolean } = {}): string {
  const work = options.work ?? true;
  const lines = [
    'version: 1',
    'id: relay',
    'title: Relay',
    'steps:',
    '  plan:',
    '    role: implementer',
    '    prompt: Plan the work',
  ];
  if (work)
    lines.push(
      '  work:',
      '    needs: [plan]',
      '    role: implementer',
      '    prompt: Do the work',
      ...(options.retries !== undefined ? [`    retries: ${options.retries}`] : []),
    );
  if (options.gate)
    lines.push(
      '  ship:',
      `    needs: [${work ? 'work' : 'plan'}]`,
      '    gate:',
      '      title: Ship it?',
      '      choices: { approve: next, reject: fail }',
    );
  return `${lines.join('\n')}\n`;
}
