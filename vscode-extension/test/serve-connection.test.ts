/**
 * How the Playbooks view reaches a workspace's `serve`, against the real thing: the built CLI's `serve`
 * (a real process on 127.0.0.1), its discovery file, its API with the bearer token and its event stream.
 * Needs `npm run build` (cli/dist/kairoku-playbook.js).
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as runtime from '@kairoku-playbook/runtime/serve';
import { defaultHome as runtimeDefaultHome } from '@kairoku-playbook/runtime';
import { EventStream, SseParser, serveRequest } from '../src/serve-client.js';
import type { ServeEvent } from '../src/serve-client.js';
import { defaultHome, findWorkspaceServe, isLoopbackUrl, serveInfoPath } from '../src/serve-discovery.js';
import { connectServe, playbookIdOf } from '../src/serve-process.js';
import type { ServeConnection } from '../src/serve-process.js';
import { CLI, REPO } from '../../test/kit/cli.js';
import { tempDir } from '../../test/kit/temp.js';

describe('the discovery file, as the CLI writes it', () => {
  it('is found at the same path, in the same home', () => {
    for (const workspace of ['/work/repo', '/tmp/a b/ü', 'C:\\Users\\x\\repo'])
      expect(serveInfoPath('/home/u/.kairoku-playbook', workspace)).toBe(
        runtime.serveInfoPath('/home/u/.kairoku-playbook', workspace),
      );
    for (const env of [{}, { KAIROKU_PLAYBOOK_HOME: '/srv/kp' }, { KAIROKU_PLAYBOOK_HOME: '' }])
      expect(defaultHome(env)).toBe(runtimeDefaultHome(env));
  });

  it('is read when its process lives, and ignored when it is gone, for another workspace, or not loopback', () => {
    const home = tempDir('kp-discovery-');
    try {
      const info = {
        pid: process.pid,
        url: 'http://127.0.0.1:7420',
        port: 7420,
        token: 't0k',
        workspace: '/w',
      };
      runtime.writeServeInfo(home, info);
      expect(findWorkspaceServe(home, '/w')).toEqual(info);
      expect(findWorkspaceServe(home, '/other')).toBeUndefined();
      runtime.writeServeInfo(home, { ...info, pid: 2 ** 22 + 12345 }); // no such process
      expect(findWorkspaceServe(home, '/w')).toBeUndefined();
      runtime.writeServeInfo(home, { ...info, url: 'http://10.0.0.5:7420' });
      expect(findWorkspaceServe(home, '/w')).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    expect(isLoopbackUrl('http://localhost:1')).toBe(true);
    expect(isLoopbackUrl('https://127.0.0.1:1')).toBe(false);
    expect(isLoopbackUrl('not a url')).toBe(false);
  });
});

describe('reading server-sent events', () => {
  it('splits events across chunks, joins data lines, keeps the last id, skips comments and retry', () => {
    const parser = new SseParser();
    expect(parser.push('retry: 1000\n\n: alive\n\nid: 1\nevent: run\nda')).toEqual([]);
    expect(
      parser.push('ta: {"id":"pr-1"}\n\nid: 2\r\nevent: playbooks\r\ndata: {}\r\n\r\ndata: a\ndata: b\n\n'),
    ).toEqual([
      { id: '1', event: 'run', data: '{"id":"pr-1"}' },
      { id: '2', event: 'playbooks', data: '{}' },
      { event: 'message', data: 'a\nb' },
    ]);
    expect(parser.lastId).toBe('2');
  });
});

describe('the playbook id of a file', () => {
  it('is its path relative to the workspace with / separators, and nothing outside it', () => {
    const dir = tempDir('kp-id-');
    try {
      mkdirSync(join(dir, 'ws', 'playbooks'), { recursive: true });
      symlinkSync(join(dir, 'ws'), join(dir, 'link'));
      expect(playbookIdOf(join(dir, 'ws'), join(dir, 'ws', 'playbooks', 'pr.yml'))).toBe('playbooks/pr.yml');
      // the workspace opened through a symbolic link: serve names files by the real path
      expect(playbookIdOf(join(dir, 'link'), join(dir, 'ws', 'playbooks', 'pr.yml'))).toBe(
        'playbooks/pr.yml',
      );
      expect(playbookIdOf(join(dir, 'ws'), join(dir, 'ws', '..foo', 'a.playbook.yml'))).toBe(
        '..foo/a.playbook.yml',
      );
      expect(playbookIdOf(join(dir, 'ws'), join(dir, 'other', 'pr.yml'))).toBeUndefined();
      expect(playbookIdOf(join(dir, 'ws'), join(dir, 'ws'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a serve for the workspace', () => {
  let scratch: string;
  let workspace: string;
  let home: string;
  let first: ServeConnection | undefined;

  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    scratch = tempDir('kp-serve-connection-');
    workspace = join(scratch, 'workspace');
    home = join(scratch, 'home');
    mkdirSync(join(workspace, 'playbooks'), { recursive: true });
    copyFileSync(join(REPO, 'playbooks', 'pr.yml'), join(workspace, 'playbooks', 'pr.yml'));
  });

  afterAll(async () => {
    await first?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('is started when none runs (127.0.0.1, a free port), then found by the next window, which does not own it', async () => {
    const lines: string[] = [];
    first = await connectServe({ cli: CLI, workspace, home, log: (line) => lines.push(line) });
    expect(first).toMatchObject({ started: true, workspace: realpathSync(workspace) });
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(findWorkspaceServe(home, realpathSync(workspace))).toMatchObject({
      pid: first.pid,
      url: first.url,
      token: first.token,
    });

    const second = await connectServe({ cli: CLI, workspace, home });
    expect(second).toMatchObject({ started: false, pid: first.pid, url: first.url, token: first.token });
    await second.stop(); // not its own: nothing happens
    expect(findWorkspaceServe(home, realpathSync(workspace))?.pid).toBe(first.pid);
    expect(lines.join('\n')).not.toContain(first.token);
  }, 60_000);

  it('answers the API with the token (and refuses without it), and streams a run as it changes', async () => {
    const serve = first!;
    const cards = await serveRequest(serve, 'GET', '/playbooks');
    expect(cards.status).toBe(200);
    expect((JSON.parse(cards.text) as { playbooks: { id: string }[] }).playbooks.map((p) => p.id)).toEqual([
      'playbooks/pr.yml',
    ]);
    expect((await serveRequest({ url: serve.url, token: 'wrong' }, 'GET', '/runs')).status).toBe(401);

    const events: ServeEvent[] = [];
    const states: boolean[] = [];
    const stream = new EventStream(serve, {
      onEvent: (event) => events.push(event),
      onConnection: (live) => states.push(live),
    });
    try {
      await expect.poll(() => states).toEqual([true]);
      const started = await serveRequest(serve, 'POST', '/runs', {
        playbook: 'playbooks/pr.yml',
        inputs: { task: 'Add a --json flag' },
      });
      expect(started.status).toBe(201);
      const run = (JSON.parse(started.text) as { run: { id: string } }).run.id;
      // It waits at its gate (serve never decides one itself); decided, it completes.
      await expect
        .poll(
          () =>
            events.some(
              (e) => e.event === 'run' && JSON.parse(e.data).id === run && JSON.parse(e.data).waiting === 1,
            ),
          {
            timeout: 30_000,
          },
        )
        .toBe(true);
      const decided = await serveRequest(serve, 'POST', `/runs/${run}/gates/ship`, {
        choice: 'approve',
        comment: 'ok',
      });
      expect(decided.status).toBe(200);
      await expect
        .poll(
          () =>
            events.some(
              (e) =>
                e.event === 'run' &&
                JSON.parse(e.data).id === run &&
                JSON.parse(e.data).status === 'completed',
            ),
          { timeout: 30_000 },
        )
        .toBe(true);
      const refused = await serveRequest(serve, 'POST', `/runs/${run}/gates/ship`, { choice: 'approve' });
      expect(refused.status).toBe(409);
      expect(JSON.parse(refused.text).refusal.code).toBe('not-waiting');
    } finally {
      stream.close();
    }
  }, 60_000);

  it('is stopped by the window that started it: its discovery file goes, and the next window starts a new one', async () => {
    const serve = first!;
    const exits: string[] = [];
    serve.onExit((why) => exits.push(why));
    await serve.stop();
    expect(exits).toHaveLength(1);
    expect(existsSync(serveInfoPath(home, realpathSync(workspace)))).toBe(false);
    await expect(serveRequest(serve, 'GET', '/runs')).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    first = await connectServe({ cli: CLI, workspace, home });
    expect(first.started).toBe(true);
    expect(first.token).not.toBe(serve.token);
    // The run the stopped one drove is still there (on disk, taken up by the new one).
    const runs = JSON.parse((await serveRequest(first, 'GET', '/runs')).text) as {
      runs: { status: string }[];
    };
    expect(runs.runs.map((r) => r.status)).toEqual(['completed']);
  }, 60_000);

  it('is started from an executable CLI (kairokuPlaybook.server.path naming an installed kairoku-playbook)', async () => {
    await first?.stop();
    first = undefined;
    const other = join(scratch, 'other-workspace');
    mkdirSync(join(other, 'playbooks'), { recursive: true });
    copyFileSync(join(REPO, 'playbooks', 'pr.yml'), join(other, 'playbooks', 'pr.yml'));
    const installed = join(scratch, 'bin', 'kairoku-playbook');
    mkdirSync(join(scratch, 'bin'), { recursive: true });
    writeFileSync(installed, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`, { mode: 0o755 });
    const serve = await connectServe({ cli: installed, executable: true, workspace: other, home });
    try {
      expect(serve).toMatchObject({ started: true, workspace: realpathSync(other) });
      const cards = JSON.parse((await serveRequest(serve, 'GET', '/playbooks')).text) as {
        playbooks: { id: string }[];
      };
      expect(cards.playbooks.map((card) => card.id)).toEqual(['playbooks/pr.yml']);
    } finally {
      await serve.stop();
    }
  }, 60_000);

  it('says why when serve cannot start', async () => {
    await expect(connectServe({ cli: CLI, workspace: join(scratch, 'missing'), home })).rejects.toThrow(
      /ENOENT|no such/,
    );
    // serve refuses (exit 2) and says why on standard error: that sentence is the error.
    await expect(
      connectServe({ cli: CLI, workspace: join(scratch, 'home'), home, args: ['--backend', 'nope'] }),
    ).rejects.toThrow(/^serve exited \(2\): .*--backend must be one of sim, paseo, kairoku/);
  }, 60_000);
});
