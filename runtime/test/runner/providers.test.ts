/**
 * The runner's claude and codex providers (RF-014), each against a fake of its executable that
 * speaks its real stream format (test/fixtures/providers, PROVENANCE.md): an agent that reports, one
 * that stops without reporting, one interrupted, one denied a tool (RF-017). Every provider event is
 * in the dispatch's full log, a curated subset reaches the app (RF-003).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KairokuBackend } from '../../src/backends/kairoku/index.js';
import { stepRun } from '@kairoku-playbook/machine';
import {
  alive,
  CLI,
  ensureRunnerBuilt,
  gitRepo,
  history,
  removeTempDirs,
  REPO,
  runnerLog,
  spawnRunner,
  startApp,
  startRun,
  stopRunners,
  tempDir,
  waitFor,
} from '../../../test/kit/index.js';
import type { RunnerProcess } from '../../../test/kit/index.js';
import { playbook } from '../helpers.js';

const FAKES = new URL('../fixtures/providers/', import.meta.url).pathname;
const FAKE_CLAUDE = join(FAKES, 'fake-claude.mjs');
const FAKE_CODEX = join(FAKES, 'fake-codex.mjs');
const INSTRUCTIONS = 'You write notes, and nothing else.';

let repo: string;
let app: { backend: KairokuBackend; url: string; faults: string[] } | undefined;
const runners: RunnerProcess[] = [];

beforeAll(() => {
  ensureRunnerBuilt();
  repo = gitRepo();
}, 240_000);

afterEach(async () => {
  await stopRunners(runners);
  await app?.backend.close();
  app = undefined;
});

afterAll(() => removeTempDirs());

type ProviderName = 'claude' | 'codex';

async function runner(
  provider: ProviderName,
  scenario: Record<string, unknown>,
  main?: string[],
): Promise<RunnerProcess> {
  const started = await spawnRunner({
    ...(main ? { main } : {}),
    app: app!.url,
    repo,
    provider,
    extra: provider === 'claude' ? ['--claude-executable', FAKE_CLAUDE] : ['--codex-executable', FAKE_CODEX],
    env: {
      [provider === 'claude' ? 'FAKE_CLAUDE_SCENARIO' : 'FAKE_CODEX_SCENARIO']: JSON.stringify(scenario),
    },
  });
  runners.push(started);
  return started;
}

function writerPlaybook(extraStep = '', run = '["npm test"]') {
  return playbook(
    `  work:
    role: writer
    prompt: Write the notes
${extraStep}`,
    `roles:\n  writer:\n    base: implementer\n    instructions: ${INSTRUCTIONS}\n    tools: { run: ${run} }\n`,
  );
}

function fullLog(
  started: RunnerProcess,
  dispatch: string,
): { at: string; provider?: string; event?: Record<string, unknown> }[] {
  return readFileSync(join(started.workDir, 'logs', `${dispatch}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { at: string; provider?: string; event?: Record<string, unknown> });
}

function token(started: RunnerProcess): string {
  return readFileSync(join(started.workDir, '..', 'token.env'), 'utf8')
    .split('=')[1]!
    .trim();
}

/** What a timed-out wait prints: the app's dispatches, the run's history, the runner's log and stderr. */
function explain(driver: ReturnType<typeof startRun>, started: RunnerProcess): () => string {
  return () =>
    JSON.stringify(
      [app?.backend.dispatches(), history(driver.state), runnerLog(started.workDir), started.stderr],
      null,
      1,
    );
}

describe.each<ProviderName>(['claude', 'codex'])('the %s provider', { timeout: 150_000 }, (provider) => {
  it('runs an agent that reports, with the role’s instructions, the first message and the report endpoint', async () => {
    app = await startApp(repo);
    const record = tempDir(`kairoku-${provider}-record-`);
    const ir = writerPlaybook();
    const driver = startRun(app.backend, ir, `run-${provider}-reports`);
    const started = await runner(provider, {
      record,
      report: { outcome: 'done', summary: 'notes written' },
      ...(provider === 'codex' ? { commands: [{ command: 'npm test', output: 'ok' }] } : {}),
    });
    await waitFor(
      'the run to complete',
      () => driver.state.status === 'completed',
      60_000,
      explain(driver, started),
    );
    expect(stepRun(driver.state, 'work')!.attempts[0]).toMatchObject({ outcome: 'done' });
    const received = JSON.parse(readFileSync(join(record, 'received.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    await waitFor('the dispatch to be released', () =>
      runnerLog(started!.workDir).some((l) => l.kind === 'released'),
    );
    const [view] = app.backend.dispatches(`run-${provider}-reports`);
    expect(view!.end).toBe('completed');
    if (provider === 'claude') {
      expect(received).toMatchObject({
        permissionPromptTool: 'stdio',
        strictMcpConfig: true,
        settingSources: '',
        appendSystemPrompt: INSTRUCTIONS,
        // the writer may not use the network: Claude Code does not get its web tools
        disallowedTools: 'WebFetch,WebSearch',
        mcpServers: {
          kairoku: {
            type: 'http',
            url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/),
            authorization: 'Bearer …',
          },
        },
      });
      expect(received.prompt).toContain('Write the notes');
    } else {
      const argv = received.argv as string[];
      expect(argv.slice(0, 2)).toEqual(['exec', '--json']);
      expect(argv).toContain('workspace-write');
      expect(argv.join(' ')).toMatch(/mcp_servers\.kairoku\.url="http:\/\/127\.0\.0\.1:\d+/);
      expect(argv).toContain('mcp_servers.kairoku.bearer_token_env_var="KAIROKU_REPORT_TOKEN"');
      expect(received.prompt).toMatch(new RegExp(`^${INSTRUCTIONS}[\\s\\S]*Write the notes`));
    }
    // RF-003: the curated subset reached the app; the full log holds every provider event.
    const kinds = view!.events.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['phase', 'message', 'tool-call', 'tool-result', 'status']));
    await waitFor('the dispatch to be released', () =>
      runnerLog(started!.workDir).some((l) => l.kind === 'released'),
    );
    const log = fullLog(started, view!.id);
    const raw = log.filter((l) => l.provider === provider).map((l) => l.event!);
    if (provider === 'claude')
      expect(raw.map((e) => e.type)).toEqual(
        expect.arrayContaining(['system', 'assistant', 'user', 'result']),
      );
    else
      expect(raw.map((e) => e.type)).toEqual(
        expect.arrayContaining([
          'thread.started',
          'turn.started',
          'item.started',
          'item.completed',
          'turn.completed',
        ]),
      );
    const text = readFileSync(join(started.workDir, 'logs', `${view!.id}.jsonl`), 'utf8');
    expect(text).not.toContain(token(started));
    expect(readdirSync(join(started.workDir, 'worktrees'))).toEqual([]);
    expect(app.backend.tokens().live).toBe(0);
    // The curated events ride the run's history too.
    expect(history(driver.state).some((h) => h.kind === 'agent' && h.text.includes('Done.'))).toBe(true);
  });

  it('fails the step of an agent that stops without reporting', async () => {
    app = await startApp(repo);
    const driver = startRun(app.backend, writerPlaybook(), `run-${provider}-silent`);
    const started = await runner(provider, { report: null });
    await waitFor(
      'the run to fail',
      () => driver.state.status === 'failed',
      60_000,
      explain(driver, started),
    );
    const [view] = app.backend.dispatches(`run-${provider}-silent`);
    expect(view!.end).toBe('completed');
    expect(view!.reported).toBe(false);
    expect(stepRun(driver.state, 'work')!.attempts[0]!.ended).toBe('lost');
  });

  it('interrupts the agent and ends its process group (a cancel, the wall clock)', async () => {
    app = await startApp(repo);
    const record = tempDir(`kairoku-${provider}-hang-`);
    const ir = writerPlaybook(provider === 'codex' ? '    timeout: 2s\n' : '');
    const driver = startRun(app.backend, ir, `run-${provider}-hang`);
    const started = await runner(provider, { record, hang: true });
    const pidFile = join(record, provider === 'claude' ? 'pid' : 'received.json');
    await waitFor('the agent to start', () => existsSync(pidFile), 60_000, explain(driver, started));
    if (provider === 'claude') {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      driver.dispatch({ type: 'cancel', reason: 'the operator stopped it' });
      await waitFor(
        'the dispatch to end',
        () => app!.backend.dispatches(`run-${provider}-hang`)[0]!.end,
        30_000,
      );
      await waitFor(
        'the agent to be gone',
        () => !alive(pid),
        10_000,
        () =>
          execFileSync('ps', ['-o', 'pid,pgid,ppid,stat,args', '-g', String(pid)], {
            encoding: 'utf8',
          }) +
          JSON.stringify(
            [
              runnerLog(started.workDir),
              readdirSync(join(started.workDir, 'logs')).map((f) =>
                readFileSync(join(started.workDir, 'logs', f), 'utf8'),
              ),
            ],
            null,
            1,
          ),
      );
      await waitFor('the dispatch to be released', () =>
        runnerLog(started.workDir).some((l) => l.kind === 'released'),
      );
      const [view] = app.backend.dispatches(`run-${provider}-hang`);
      // The interrupt went through the SDK's control protocol: Claude ended its turn in error.
      const raw = fullLog(started, view!.id)
        .filter((l) => l.provider === 'claude')
        .map((l) => l.event!);
      expect(raw.some((e) => e.type === 'result' && e.subtype === 'error_during_execution')).toBe(true);
      expect(driver.state.status).toBe('canceled');
    } else {
      await waitFor(
        'the run to fail',
        () => driver.state.status === 'failed',
        60_000,
        explain(driver, started),
      );
      expect(stepRun(driver.state, 'work')!.attempts[0]).toMatchObject({ ended: 'timeout' });
      expect(app.backend.dispatches(`run-${provider}-hang`)[0]!.end).toBe('timed-out');
    }
    await waitFor(
      'the worktree to be removed',
      () => readdirSync(join(started.workDir, 'worktrees')).length === 0,
    );
  });

  it('denies a tool call outside the role’s policy, and the denial is an event (RF-017)', async () => {
    app = await startApp(repo);
    const driver = startRun(app.backend, writerPlaybook(), `run-${provider}-denied`);
    const scenario =
      provider === 'claude'
        ? {
            tools: [
              { name: 'Write', input: { file_path: 'notes.txt', content: 'notes' } },
              { name: 'Write', input: { file_path: '../../outside.txt', content: 'x' } },
              { name: 'Bash', input: { command: 'rm -rf /' } },
              { name: 'Task', input: { description: 'a sub-agent', prompt: 'go' } },
            ],
            report: { outcome: 'done' },
          }
        : { commands: [{ command: 'npm test' }, { command: 'rm -rf /' }], report: { outcome: 'done' } };
    const started = await runner(provider, scenario);
    await waitFor(
      'the run to end',
      () => driver.state.status !== 'running',
      60_000,
      explain(driver, started),
    );
    const [view] = app.backend.dispatches(`run-${provider}-denied`);
    const denials = view!.events.filter((e) => e.kind === 'denial').map((e) => e.text);
    const noted = history(driver.state)
      .filter((h) => h.kind === 'tool-denied')
      .map((h) => h.text)
      .join('\n');
    expect(noted).toMatch(/rm -rf \/.*matches none of its commands/);
    expect(denials.join('\n')).toMatch(/rm -rf \/.*matches none of its commands/);
    if (provider === 'claude') {
      // Claude was told, went on, and reported: the denied calls never ran.
      expect(noted).toMatch(/outside\.txt.*outside the worktree/);
      expect(denials.join('\n')).toMatch(/no place for the tool Task/);
      expect(driver.state.status).toBe('completed');
      expect(existsSync(join(repo, '..', 'outside.txt'))).toBe(false);
    } else {
      // codex ran it before the runner saw it: the agent is stopped and the step fails (fail closed).
      expect(view!.end).toBe('failed');
      expect(view!.reason).toMatch(/RF-017/);
      expect(driver.state.status).toBe('failed');
    }
  });
});

describe('the CLI’s single bundle', { timeout: 150_000 }, () => {
  it('runs the claude provider, requiring the SDK from beside the program (the bundle does not carry it)', async () => {
    const bundle = CLI;
    expect(readFileSync(join(REPO, 'cli/dist/kairoku-playbook.bundle.cjs'), 'utf8')).not.toContain(
      'canUseTool callback cannot be used',
    );
    app = await startApp(repo);
    const driver = startRun(app.backend, writerPlaybook(), 'run-bundle-claude');
    const started = await runner('claude', { report: { outcome: 'done' } }, [bundle, 'runner']);
    await waitFor(
      'the run to complete',
      () => driver.state.status === 'completed',
      60_000,
      explain(driver, started),
    );
    expect(stepRun(driver.state, 'work')!.attempts[0]).toMatchObject({ outcome: 'done' });
  });
});
