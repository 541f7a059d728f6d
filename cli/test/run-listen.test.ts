/**
 * `run --backend kairoku --listen HOST:PORT` judges HOST by what it resolves to (issue 11): the
 * wildcard however spelled is a usage error, and so is any address other machines could reach unless
 * `--allow-remote-runners` says so. Nothing is saved and nothing listens when it is refused.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRun } from '../src/commands/run.js';
import type { CommandIo } from '../src/io.js';
import { tempDir } from '../../test/kit/index.js';

let root: string;
let home: string;
let previousHome: string | undefined;

beforeAll(() => {
  previousHome = process.env.KAIROKU_PLAYBOOK_HOME;
  root = tempDir('kp-listen-');
  home = join(root, 'home');
  process.env.KAIROKU_PLAYBOOK_HOME = home;
  mkdirSync(join(root, 'playbooks'));
  writeFileSync(
    join(root, 'playbooks', 'one.yml'),
    `version: 1
id: one
title: One
steps:
  work:
    role: implementer
    prompt: Work
`,
  );
});
afterAll(() => {
  if (previousHome === undefined) delete process.env.KAIROKU_PLAYBOOK_HOME;
  else process.env.KAIROKU_PLAYBOOK_HOME = previousHome;
  rmSync(root, { recursive: true, force: true });
});

async function run(...flags: string[]) {
  const out = { stdout: '', stderr: '' };
  const io: CommandIo = {
    cwd: root,
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    color: false,
    colorStderr: false,
  };
  const env = { KAIROKU_APP_TOKEN: 'an-app-token-long-enough' };
  let code: number;
  try {
    code = await runRun(['playbooks/one.yml', '--backend', 'kairoku', ...flags], io, undefined, env);
  } catch (error) {
    // main turns a UsageError into exit 2; runRun throws it for flags it refuses before anything runs
    out.stderr += (error as Error).message;
    code = 2;
  }
  return { code, ...out };
}

describe('run --backend kairoku --listen', { timeout: 30_000 }, () => {
  it.each(['0:0', '0x0:0', '00.0.0.0:0', '0.0:0', '0.0.0.0:0', '[::]:0', '[::ffff:0.0.0.0]:0', '[0::0]:0'])(
    'refuses %s, a wildcard bind, even with --allow-remote-runners',
    async (listen) => {
      for (const extra of [[], ['--allow-remote-runners']]) {
        const result = await run('--listen', listen, ...extra);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(/wildcard address .*every interface/);
      }
      const runs = join(home, 'runs');
      expect(existsSync(runs) ? readdirSync(runs).filter((f) => f.endsWith('.json')) : []).toEqual([]);
    },
  );

  it.each(['192.168.1.5:0', '10.1:0', '[fe80::1]:0'])(
    'refuses %s, an address other machines could reach, and says how to allow it',
    async (listen) => {
      const result = await run('--listen', listen);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/binds loopback only: .*add --allow-remote-runners/);
    },
  );

  it('says what HOST:PORT looks like', async () => {
    const result = await run('--listen', '::1');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--listen takes HOST:PORT \(\[::1\]:PORT for IPv6/);
  });
});
