import {
  callServe,
  CLI,
  removeTempDirs,
  runCli,
  startServe as startServeProcess,
  tempDir,
} from '../../test/kit/index.js';
import { X509Certificate } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunStore, stepRun, vecToArray } from '@kairoku-playbook/runtime';

/**
 * `serve --backend kairoku` on loopback, as a user runs it (the network-namespace test,
 * serve-kairoku-netns.test.ts, takes it across a real network boundary where it can): the flags'
 * refusals, the self-signed certificate kept across restarts (so runners keep their pin), and a
 * runner pinning it.
 */

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  removeTempDirs();
});

function workspace(): string {
  const dir = tempDir('kp-serve-ws-');
  execFileSync('git', ['-C', dir, 'init', '-q', '-b', 'main']);
  execFileSync('git', [
    '-C',
    dir,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@e',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'init',
  ]);
  return dir;
}

function serveOnce(args: string[], home: string) {
  return runCli(['serve', ...args], { home });
}

/** `serve --backend kairoku` over TLS (the test kit's `startServe`), once it says where runners dial in. */
async function startServe(
  ws: string,
  home: string,
  extra: string[] = [],
): Promise<{ child: ChildProcess; app: string; fingerprint: string; panel: string; token: string }> {
  const served = await startServeProcess({
    workspace: ws,
    home,
    args: ['--backend', 'kairoku', '--app-listen', '127.0.0.1:0', '--tls-self-signed', ...extra],
    env: process.env,
    until: /kairoku app: (https:\/\/[^\s]+)\n.*\(SHA-256\): ([0-9A-F:]+)\n/,
  });
  children.push(served.child);
  const [, app, fingerprint] = served.match;
  return {
    child: served.child,
    panel: served.url,
    token: served.token,
    app: app!,
    fingerprint: fingerprint!,
  };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

describe('serve --backend kairoku', () => {
  it('refuses a routable address without TLS, the wildcard by another spelling, and TLS flags on another backend', () => {
    const ws = workspace();
    const home = tempDir('kp-serve-home-');
    const plain = serveOnce([ws, '--backend', 'kairoku', '--app-listen', '10.213.0.1:0'], home);
    expect(plain.status).toBe(2);
    expect(plain.stderr).toMatch(/not a loopback address.*serve it over TLS/);
    const wildcard = serveOnce(
      [ws, '--backend', 'kairoku', '--app-listen', '0:0', '--tls-self-signed'],
      home,
    );
    expect(wildcard.status).toBe(2);
    expect(wildcard.stderr).toMatch(/refusing the wildcard address "0" \(it resolves to 0\.0\.0\.0\)/);
    const sim = serveOnce([ws, '--tls-self-signed'], home);
    expect(sim.status).toBe(2);
    expect(sim.stderr).toMatch(/--tls-self-signed is for serve --backend kairoku/);
    const half = serveOnce([ws, '--backend', 'kairoku', '--tls-cert', 'a.pem'], home);
    expect(half.status).toBe(2);
    expect(half.stderr).toMatch(/--tls-cert and --tls-key go together/);
  }, 120_000);

  it('keeps its self-signed certificate across restarts, and a runner pinning it registers', async () => {
    const ws = workspace();
    const home = tempDir('kp-serve-home-');
    const first = await startServe(ws, home);
    await stop(first.child);
    const second = await startServe(ws, home);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect(readFileSync(join(home, 'kairoku', 'tls', 'app.crt'), 'utf8')).toMatch(/BEGIN CERTIFICATE/);

    const workDir = join(tempDir('kp-runner-'), 'work');
    const runner = spawn(
      process.execPath,
      [
        CLI,
        'runner',
        '--app',
        second.app,
        '--app-fingerprint',
        second.fingerprint.replace(/:/g, '').toLowerCase(),
        '--token-file',
        join(home, 'kairoku', 'token.env'),
        '--repo',
        ws,
        '--work-dir',
        workDir,
        '--heartbeat-ms',
        '100',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    children.push(runner);
    const deadline = Date.now() + 60_000;
    const log = join(workDir, 'runner.jsonl');
    while (!(existsSync(log) && readFileSync(log, 'utf8').includes('"registered"')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readFileSync(log, 'utf8')).toContain('"registered"');
    // What its agents are told to trust: the app's own certificate.
    expect(readFileSync(join(workDir, 'app-ca.pem'), 'utf8')).toContain(
      readFileSync(join(home, 'kairoku', 'tls', 'app.crt'), 'utf8').trim(),
    );
    await stop(runner);
    await stop(second.child);
  }, 120_000);

  it('gives runners --app-url instead of the address it listens on, and checks it', async () => {
    const ws = workspace();
    const home = tempDir('kp-serve-home-');
    const served = await startServe(ws, home, ['--app-url', 'https://kairoku-app.test:7421']);
    expect(served.app).toBe('https://kairoku-app.test:7421');
    await stop(served.child);
    // The self-signed certificate names the URL's host too, so an agent that checks names accepts it.
    const cert = new X509Certificate(readFileSync(join(home, 'kairoku', 'tls', 'app.crt')));
    expect(cert.subjectAltName).toContain('DNS:kairoku-app.test');
    const plain = serveOnce(
      [ws, '--backend', 'kairoku', '--app-listen', '127.0.0.1:0', '--app-url', 'https://box:7421'],
      home,
    );
    expect(plain.status).toBe(2);
    expect(plain.stderr).toMatch(
      /--app-url https:\/\/box:7421: the app serves plain HTTP, so its URL starts http:\/\//,
    );
    const path = serveOnce(
      [ws, '--backend', 'kairoku', '--app-listen', '127.0.0.1:0', '--app-url', 'http://box:7421/app'],
      home,
    );
    expect(path.status).toBe(2);
    expect(path.stderr).toMatch(/only the scheme, host and port/);
  }, 120_000);

  it('fails, never relaunches, a dispatch a killed serve left non-terminal (RF-013)', async () => {
    const ws = workspace();
    mkdirSync(join(ws, 'playbooks'));
    writeFileSync(
      join(ws, 'playbooks', 'one.yml'),
      'version: 1\nid: one\ntitle: One agent step\nsteps:\n  build:\n    role: implementer\n    prompt: Build it\n',
    );
    const home = tempDir('kp-serve-home-');
    const first = await startServe(ws, home);
    const started = await callServe<{ run: { id: string } }>(
      { url: first.panel, token: first.token },
      '/api/v1/runs',
      { playbook: 'playbooks/one.yml', inputs: {} },
    );
    expect(started.status).toBe(201);
    const { run } = started.body;
    // No runner claims it: the dispatch is queued when serve dies.
    const killed = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;
    const second = await startServe(ws, home);
    const state = new RunStore(home).load(run.id)!;
    expect(state.status).toBe('failed');
    expect(stepRun(state, 'build')!.attempts.map((a) => a.ended)).toEqual(['lost']);
    expect(vecToArray(state.history).some((h) => h.text.includes('never relaunched (RF-013)'))).toBe(true);
    await stop(second.child);
  }, 120_000);
});
