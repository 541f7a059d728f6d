import { findServe } from '@kairoku-playbook/runtime/serve';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore, stepRun, vecToArray } from '@kairoku-playbook/runtime';
import type { RunState } from '@kairoku-playbook/runtime';
import { CLI, FAKE_AGENT, gitRepo, removeTempDirs, REPO, tempDir, waitFor } from '../../test/kit/index.js';

/**
 * The fleet across a real network boundary (issue 15 §1): two network namespaces joined by a veth
 * pair on a private /30 — `serve --backend kairoku` over TLS (self-signed) in one, two `runner`
 * processes pinning its fingerprint in the other, their step agents reporting over the same TLS
 * listener. playbooks/pr.yml runs to its end; then a runner SIGKILLed mid-dispatch (RF-013), serve
 * SIGKILLed and started again mid-run (recovery), a wrong fingerprint and plain HTTP off loopback
 * (refused), a revoked report token (refused). Traffic stays inside the namespaces; they are removed
 * on every exit path. Needs root and iproute2's `ip`: skipped, with the reason, where they are missing.
 */

const REPOSITORY = 'fleet.example/acme/shop.git';

/** Why namespaces cannot be made here, or undefined when they can. */
function whyNoNamespaces(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'making network namespaces needs root (CI runs as root)';
  const ip = spawnSync('ip', ['-V'], { encoding: 'utf8' });
  if (ip.error) return 'no `ip` command (Debian package iproute2)';
  const probe = `kp-probe-${process.pid}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `ip netns add failed: ${made.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return undefined;
}

const skipReason = whyNoNamespaces();
if (skipReason) console.warn(`serve-kairoku-netns: skipped: ${skipReason}`);

const suffix = `${process.pid.toString(36)}${randomBytes(2).toString('hex')}`;
const APP_NS = `kp-app-${suffix}`;
const RUN_NS = `kp-run-${suffix}`;
const subnet = 1 + (randomBytes(1)[0]! % 250);
const APP_IP = `10.213.${subnet}.1`;
const RUN_IP = `10.213.${subnet}.2`;
const PORT = 20_000 + (randomBytes(2).readUInt16BE() % 40_000);

const children = new Set<ChildProcess>();
let namespacesMade = false;

function removeNamespaces(): void {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (!namespacesMade) return;
  namespacesMade = false;
  // The veth pair goes with the namespaces.
  for (const ns of [APP_NS, RUN_NS]) spawnSync('ip', ['netns', 'del', ns]);
}
process.once('exit', removeNamespaces);
afterAll(() => {
  removeNamespaces();
  removeTempDirs();
});

function ip(...args: string[]): void {
  execFileSync('ip', args, { stdio: 'pipe' });
}

function makeNamespaces(): void {
  ip('netns', 'add', APP_NS);
  namespacesMade = true;
  ip('netns', 'add', RUN_NS);
  const a = `kpa${suffix}`.slice(0, 15);
  const b = `kpr${suffix}`.slice(0, 15);
  ip('link', 'add', a, 'netns', APP_NS, 'type', 'veth', 'peer', 'name', b, 'netns', RUN_NS);
  for (const [ns, dev, address] of [
    [APP_NS, a, APP_IP],
    [RUN_NS, b, RUN_IP],
  ] as const) {
    ip('-n', ns, 'link', 'set', 'lo', 'up');
    ip('-n', ns, 'addr', 'add', `${address}/30`, 'dev', dev);
    ip('-n', ns, 'link', 'set', dev, 'up');
  }
}

const ENV = { ...process.env, NPM_CONFIG_UPDATE_NOTIFIER: 'false', NO_COLOR: '1' };

/** A process in a namespace, its output kept; resolves once `ready` matches its stdout. */
function spawnIn(
  ns: string,
  argv: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<{
  child: ChildProcess;
  match: RegExpExecArray;
  out: string[];
  err: string[];
  exit: Promise<number | null>;
}> {
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, ...argv], {
    env: { ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const out: string[] = [];
  const err: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => err.push(line));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let text = '';
    createInterface({ input: child.stdout! }).on('line', (line) => {
      out.push(line);
      text += `${line}\n`;
      const match = ready.exec(text);
      if (match) resolve({ child, match, out, err, exit });
    });
    // An exit before the ready line fails the wait; after it, rejecting a settled promise does nothing.
    void exit.then((code) => reject(new Error(`${argv[1]} exited with ${code}: ${err.join('\n')}`)));
  });
}

interface Serve {
  child: ChildProcess;
  panel: string;
  token: string;
  fingerprint: string;
  err: string[];
  exit: Promise<number | null>;
}

async function startServe(workspace: string, home: string): Promise<Serve> {
  const started = await spawnIn(
    APP_NS,
    [
      CLI,
      'serve',
      workspace,
      '--listen',
      '127.0.0.1:0',
      '--backend',
      'kairoku',
      '--app-listen',
      `${APP_IP}:${PORT}`,
      '--tls-self-signed',
      '--repository',
      REPOSITORY,
    ],
    { KAIROKU_PLAYBOOK_HOME: home },
    /login URL: (http:\/\/127\.0\.0\.1:\d+)\/\?login=\S+\n[^]*fingerprint \(SHA-256\): ([0-9A-F:]+)\n/,
  );
  // (the API token is in serve's discovery file, written before it prints the login URL)
  return {
    child: started.child,
    panel: started.match[1]!,
    token: findServe(home, workspace)!.token,
    fingerprint: started.match[2]!,
    err: started.err,
    exit: started.exit,
  };
}

/** The panel's API, from inside the app's namespace (it listens on that namespace's loopback). */
function api<T>(serve: Serve, path: string, body?: unknown): { status: number; body: T } {
  const script = `fetch(${JSON.stringify(serve.panel + path)}, ${JSON.stringify({
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })}).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.json() })))`;
  const text = execFileSync('ip', ['netns', 'exec', APP_NS, process.execPath, '-e', script], {
    encoding: 'utf8',
    env: ENV,
  });
  return JSON.parse(text) as { status: number; body: T };
}

interface Runner {
  child: ChildProcess;
  id: string;
  workDir: string;
  err: string[];
  exit: Promise<number | null>;
}

async function startRunner(
  id: string,
  repo: string,
  home: string,
  script: string,
  fingerprint: string,
): Promise<Runner> {
  const workDir = join(home, 'runners', id);
  const started = await spawnIn(
    RUN_NS,
    [
      CLI,
      'runner',
      '--app',
      `https://${APP_IP}:${PORT}`,
      '--app-fingerprint',
      fingerprint,
      '--token-file',
      join(home, 'kairoku', 'token.env'),
      '--repo',
      repo,
      '--repository',
      REPOSITORY,
      '--id',
      id,
      '--work-dir',
      workDir,
      '--claim-ms',
      '100',
      '--flush-ms',
      '200',
      '--grace-ms',
      '500',
      '--agent-command',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_AGENT)} --script ${JSON.stringify(script)}`,
    ],
    {},
    /\{"ready":true.*\}/,
  );
  return { child: started.child, id, workDir, err: started.err, exit: started.exit };
}

/** A runner that must not start: resolves to its exit code and what it said. */
async function refusedRunner(app: string, extra: string[], home: string, repo: string) {
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      RUN_NS,
      process.execPath,
      CLI,
      'runner',
      '--app',
      app,
      ...extra,
      '--token-file',
      join(home, 'kairoku', 'token.env'),
      '--repo',
      repo,
      '--work-dir',
      join(home, 'runners', `refused-${randomBytes(3).toString('hex')}`),
      '--heartbeat-ms',
      '100',
    ],
    { env: ENV, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(child);
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, err };
}

function runState(home: string, id: string): RunState | undefined {
  try {
    return new RunStore(home).load(id);
  } catch {
    return undefined;
  }
}

const outcomes = (state: RunState, step: string) =>
  stepRun(state, step)?.attempts.map((a) => a.outcome ?? a.ended) ?? [];

/** The workspace (serve's, with playbooks/pr.yml) and the runners' clone of it. */
function makeRepos(): { workspace: string; clone: string } {
  const workspace = gitRepo({
    files: {
      'playbooks/pr.yml': readFileSync(join(REPO, 'playbooks/pr.yml'), 'utf8'),
      // pr.yml's qa runs `npm run lint` and `npm test`: both pass, with a summary the runner parses.
      'package.json': JSON.stringify({
        name: 'shop',
        private: true,
        scripts: { lint: 'node -e "0"', test: 'node -e "console.log(\' Tests  3 passed (3)\')"' },
      }),
    },
  });
  const clone = tempDir('kp-clone-');
  rmSync(clone, { recursive: true });
  execFileSync('git', ['clone', '-q', workspace, clone]);
  return { workspace, clone };
}

describe.skipIf(skipReason !== undefined)('serve --backend kairoku across network namespaces', () => {
  it('runs pr.yml over TLS to two runners; survives a killed runner and a restarted serve; refuses a wrong fingerprint, plain HTTP and a revoked token', async () => {
    makeNamespaces();
    const { workspace, clone } = makeRepos();
    const home = tempDir('kp-home-');
    const scratch = tempDir('kp-scratch-');
    const scriptFile = join(scratch, 'script.json');
    const script = (entries: Record<string, unknown[]>) => writeFileSync(scriptFile, JSON.stringify(entries));
    const launches = (run: string) => join(scratch, `launches-${run}`);

    let serve = await startServe(workspace, home);
    expect(serve.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    const runners = [
      await startRunner('runner-a', clone, home, scriptFile, serve.fingerprint),
      await startRunner('runner-b', clone, home, scriptFile, serve.fingerprint),
    ];
    const explain = (id: string) => () =>
      JSON.stringify(
        {
          history: (() => {
            const state = runState(home, id);
            return state ? vecToArray(state.history).map((h) => `${h.kind}: ${h.text}`) : [];
          })(),
          serve: serve.err.slice(-20),
          runners: runners.map((r) => r.err.slice(-10)),
        },
        null,
        1,
      );

    // 1. pr.yml to its end: plan, implement (it commits on the run's branch), qa (a check, no model,
    // on the runner's machine), review skipped (not strict), the ship gate decided, the after-task.
    script({
      plan: [{ outputs: { plan: 'add a flag', files: ['src/cli.ts'] }, launches: launches('1') }],
      implement: [
        {
          outputs: { branch: 'feat/flag' },
          commit: 'flag.txt',
          launches: launches('1'),
          tokenFile: join(scratch, 'implement.token'),
        },
      ],
      'after.summarize': [{ launches: launches('1') }],
    });
    const started = api<{ run: { id: string } }>(serve, '/api/v1/runs', {
      playbook: 'playbooks/pr.yml',
      inputs: { task: 'Add a --json flag' },
    });
    expect(started.status).toBe(201);
    const first = started.body.run.id;
    await waitFor(
      'the ship gate',
      () => {
        const state = runState(home, first);
        return state !== undefined && stepRun(state, 'ship')?.status === 'waiting';
      },
      180_000,
      explain(first),
    );
    const decided = api(serve, `/api/v1/runs/${first}/gates/ship`, { choice: 'approve' });
    expect(decided.status).toBe(200);
    const done = await waitFor(
      'run 1 to end',
      () => {
        const state = runState(home, first);
        return state &&
          state.status !== 'running' &&
          state.status !== 'paused' &&
          !stepRun(state, 'after.summarize')?.status.match(/running|ready/)
          ? state
          : undefined;
      },
      120_000,
      explain(first),
    );
    expect(done.status).toBe('completed');
    expect(outcomes(done, 'plan')).toEqual(['done']);
    expect(outcomes(done, 'implement')).toEqual(['done']);
    expect(outcomes(done, 'qa')).toEqual(['pass']);
    expect(stepRun(done, 'qa')!.attempts[0]!.outputs).toMatchObject({ passed: 3, failed: 0 });
    expect(stepRun(done, 'review')!.status).toBe('skipped');
    expect(done.outputs).toMatchObject({ branch: 'feat/flag' });
    // The step agents ran on the runners' side and reported over TLS (the report endpoint's URL).
    const breadcrumbLog = runners.flatMap((r) =>
      readFileSync(join(r.workDir, 'runner.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    );
    expect(breadcrumbLog.filter((l) => l.kind === 'launch').length).toBeGreaterThanOrEqual(4);

    // 2. A revoked token: implement's, replayed from the runners' machine over TLS, is refused.
    const token = readFileSync(join(scratch, 'implement.token'), 'utf8');
    const replay = execFileSync(
      'ip',
      [
        'netns',
        'exec',
        RUN_NS,
        process.execPath,
        '-e',
        `fetch('https://${APP_IP}:${PORT}/mcp', { method: 'POST', headers: { authorization: 'Bearer ${token}', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'late', version: '1' } } }) }).then(async (r) => console.log(JSON.stringify({ status: r.status, text: await r.text() })))`,
      ],
      { encoding: 'utf8', env: { ...ENV, NODE_EXTRA_CA_CERTS: join(home, 'kairoku', 'tls', 'app.crt') } },
    );
    const replayed = JSON.parse(replay) as { status: number; text: string };
    expect(replayed.status).toBe(401);
    expect(replayed.text).toMatch(/revoked/);

    // 3. A wrong fingerprint, and plain HTTP off loopback: refused before the credential is sent.
    const wrong = serve.fingerprint.replace(/^../, serve.fingerprint.startsWith('00') ? '11' : '00');
    const pinned = await refusedRunner(
      `https://${APP_IP}:${PORT}`,
      ['--app-fingerprint', wrong],
      home,
      clone,
    );
    expect(pinned.code).toBe(4);
    expect(pinned.err).toMatch(/not the pinned/);
    const plain = await refusedRunner(`http://${APP_IP}:${PORT}`, [], home, clone);
    expect(plain.code).toBe(4);
    expect(plain.err).toMatch(/not loopback/);

    // 4. A runner SIGKILLed mid-dispatch (RF-013): its dispatch is failed, never relaunched; pr.yml's
    // implement has no retries, so the run fails, as the playbook says.
    script({
      plan: [{ outputs: { plan: 'p', files: [] }, launches: launches('2') }],
      implement: [{ hang: true, launches: launches('2') }],
      'after.summarize': [{ launches: launches('2') }],
    });
    const second = api<{ run: { id: string } }>(serve, '/api/v1/runs', {
      playbook: 'playbooks/pr.yml',
      inputs: { task: 'Kill a runner' },
    }).body.run.id;
    await waitFor(
      'implement to run (run 2)',
      () => existsSync(join(launches('2'), 'implement.1')),
      120_000,
      explain(second),
    );
    const holder = await waitFor(
      'the runner holding implement',
      () => runners.find((r) => readdirSync(join(r.workDir, 'dispatches')).length > 0),
      30_000,
    );
    holder.child.kill('SIGKILL');
    await holder.exit;
    const lost = await waitFor(
      'run 2 to fail',
      () => {
        const state = runState(home, second);
        return state && state.status === 'failed' ? state : undefined;
      },
      120_000,
      explain(second),
    );
    expect(outcomes(lost, 'implement')).toEqual(['lost']);
    expect(
      vecToArray(lost.history).some((h) => h.text.includes(`runner ${holder.id} missed its heartbeats`)),
    ).toBe(true);
    expect(
      readFileSync(join(launches('2'), 'implement.1'), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(1);
    expect(existsSync(join(launches('2'), 'implement.2'))).toBe(false);
    const survivor = runners.find((r) => r !== holder)!;

    // 5. serve SIGKILLed mid-run and started again: the dispatch it left non-terminal is failed, never
    // relaunched (RF-013); the runner holding it is told to tear it down.
    script({
      plan: [{ outputs: { plan: 'p', files: [] }, launches: launches('3') }],
      implement: [{ hang: true, launches: launches('3') }],
      'after.summarize': [{ launches: launches('3') }],
    });
    const third = api<{ run: { id: string } }>(serve, '/api/v1/runs', {
      playbook: 'playbooks/pr.yml',
      inputs: { task: 'Restart serve' },
    }).body.run.id;
    await waitFor(
      'implement to run (run 3)',
      () => existsSync(join(launches('3'), 'implement.1')),
      120_000,
      explain(third),
    );
    serve.child.kill('SIGKILL');
    await serve.exit;
    serve = await startServe(workspace, home);
    const recovered = await waitFor(
      'run 3 to fail after the restart',
      () => {
        const state = runState(home, third);
        return state && state.status === 'failed' ? state : undefined;
      },
      60_000,
      explain(third),
    );
    expect(outcomes(recovered, 'implement')).toEqual(['lost']);
    expect(vecToArray(recovered.history).some((h) => h.text.includes('never relaunched (RF-013)'))).toBe(
      true,
    );
    await waitFor(
      'the survivor to tear the orphaned dispatch down',
      () => readdirSync(join(survivor.workDir, 'dispatches')).length === 0,
      30_000,
    );
    expect(existsSync(join(launches('3'), 'implement.2'))).toBe(false);
    // The same certificate after the restart: runners keep their pin.
    expect(survivor.child.exitCode).toBe(null);
  }, 600_000);
});
