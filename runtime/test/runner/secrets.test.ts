/**
 * The reference runner keeps no secret on disk (issue 11): a dispatch's breadcrumb — the file that
 * outlives a crash, and that the agent reads — holds neither the agent's report token nor a check's
 * env values, and the logs mask them; after a SIGKILL, nothing in the work dir holds either.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KairokuBackend } from '../../src/backends/kairoku/index.js';
import { createRun, prepareInputs, splitSecrets } from '@kairoku-playbook/machine';
import { Driver } from '../../src/driver/driver.js';
import {
  ensureRunnerBuilt,
  gitRepo,
  removeTempDirs,
  runnerLog,
  spawnRunner,
  startApp,
  tempDir,
  waitFor,
  writeScript,
} from '../../../test/kit/index.js';
import type { RunnerProcess } from '../../../test/kit/index.js';
import { playbook } from '../helpers.js';

const SECRET = 'tok-Sup3rS3cret-12345';

let repo: string;
let app: { backend: KairokuBackend; url: string } | undefined;
let runner: RunnerProcess | undefined;

beforeAll(() => {
  ensureRunnerBuilt();
  repo = gitRepo();
});
afterEach(async () => {
  if (runner && runner.child.exitCode === null && runner.child.signalCode === null)
    runner.child.kill('SIGKILL');
  runner = undefined;
  await app?.backend.close();
  app = undefined;
});
afterAll(() => removeTempDirs());

function files(dir: string): { path: string; text: string }[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'worktrees' ? [] : files(path);
    return [{ path, text: readFileSync(path, 'latin1') }];
  });
}

function start(steps: string, script?: string) {
  const ir = playbook(steps, 'inputs:\n  token: { type: string, secret: true }\n');
  const prepared = prepareInputs(ir, { token: SECRET });
  if (!prepared.ok) throw new Error(prepared.errors.join());
  const state = createRun(ir, { id: 'run-s', inputs: prepared.inputs, now: Date.now(), backend: 'kairoku' });
  const driver = new Driver(state, {
    backend: app!.backend,
    secrets: splitSecrets(ir, prepared.inputs).secrets,
  });
  driver.dispatch({ type: 'start' });
  return spawnRunner({ app: app!.url, repo, ...(script ? { script } : {}) });
}

describe('the runner’s files', { timeout: 60_000 }, () => {
  it('a check’s breadcrumb holds no env value, and nothing in the work dir does after a crash', async () => {
    app = await startApp(repo);
    runner = await start(`  check:
    run: node -e "console.log('token ' + process.env.TOKEN); setInterval(() => {}, 1000)"
    env: { TOKEN: '\${{ inputs.token }}' }
`);
    const dispatches = join(runner.workDir, 'dispatches');
    const [crumb] = await waitFor('the breadcrumb', () => {
      const names = existsSync(dispatches) ? readdirSync(dispatches) : [];
      return names.length ? names : undefined;
    });
    await waitFor('the check to be launched', () =>
      runnerLog(runner!.workDir).some((l) => l.kind === 'launch'),
    );
    const written = JSON.parse(readFileSync(join(dispatches, crumb!), 'utf8')) as { check: { env: object } };
    expect(written.check.env).toEqual({ TOKEN: '••••••' });
    runner.child.kill('SIGKILL');
    await runner.exit;
    for (const file of files(runner.workDir)) expect(file.text, file.path).not.toContain(SECRET);
  });

  it('an agent’s breadcrumb holds no report token (the agent has it in its environment)', async () => {
    app = await startApp(repo);
    const launches = tempDir('kairoku-launches-');
    runner = await start(
      `  work:
    role: implementer
    prompt: Work
`,
      writeScript(tempDir('kairoku-script-'), { work: [{ hang: true, launches }] }),
    );
    await waitFor('the agent to start', () => existsSync(join(launches, 'work.1')));
    const [view] = app.backend.dispatches('run-s');
    const token = (view as unknown as { id: string }).id;
    const crumb = readFileSync(join(runner.workDir, 'dispatches', `${token}.json`), 'utf8');
    const dispatch = JSON.parse(crumb) as { agent: { report: { token: string } } };
    expect(dispatch.agent.report.token).toBe('••••••');
  });
});
