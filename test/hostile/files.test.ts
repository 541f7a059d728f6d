/**
 * Hostile files and folders (issue 11), through the built CLI and the language server as a user meets
 * them: symbolic-link loops (`ln -s . x`, more and more of them), a playbook that is `/dev/zero` or a
 * FIFO, a regular file over the size limit, folder trees of growing size and depth. Each answer is JSON
 * on standard output with a diagnostic, or a refusal on standard error, never a hang, a crash or a heap
 * running out: every child runs with `--max-old-space-size=1024` under a generous hang guard, and the
 * language server must still answer a request after being started on such a root, or on `/`.
 *
 * No timing assertions: the guards only catch a hang. Times and peak memory: bench/hostile-files.mjs.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, REPO, runCli, tempDir } from '../kit/index.js';

const HEAP = '--max-old-space-size=1024';
/** Far above any honest answer here (the slowest, a 100,001-folder walk, takes seconds): only a hang reaches it. */
const HANG_GUARD_MS = 120_000;
const unix = process.platform !== 'win32';

const PLAYBOOK = 'version: 1\ntitle: Fine\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n';
const root = tempDir('kp-hostile-files-');
// On a tmpfs of its own where mounting is allowed (root, as in CI): the 100,001-folder tree is made
// and removed in seconds, where a disk-backed /tmp takes minutes. Elsewhere, the same tests on /tmp.
const mounted =
  process.platform === 'linux' &&
  spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256m,nr_inodes=400k', 'tmpfs', root]).status === 0;
afterAll(() => {
  if (mounted) spawnSync('umount', ['--lazy', root]);
  rmSync(root, { recursive: true, force: true });
}, HANG_GUARD_MS);

/** A folder under the test's root with these files (text, or a function that makes the entry). */
function folder(name: string, files: Record<string, string | ((path: string) => void)> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [path, make] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, '..'), { recursive: true });
    if (typeof make === 'string') writeFileSync(full, make);
    else make(full);
  }
  return dir;
}

const link = (target: string) => (path: string) => symlinkSync(target, path);
const fifo = (path: string) => execFileSync('mkfifo', [path]);

interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The built CLI in a child with a bounded heap, killed by the hang guard. */
function cli(cwd: string, ...args: string[]): CliResult {
  const result = spawnSync(process.execPath, [HEAP, CLI, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NO_COLOR: '1', KAIROKU_PLAYBOOK_HOME: join(root, 'home') },
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

interface JsonDiagnostic {
  file: string;
  code: string;
  severity: string;
  message: string;
}

/**
 * `check --format json`: it ended by itself (no hang guard, no crash, no heap exhaustion), stdout is a
 * JSON array of diagnostics, and standard error holds nothing but refusals.
 */
function checkJson(cwd: string, ...paths: string[]): CliResult & { diagnostics: JsonDiagnostic[] } {
  const result = cli(cwd, 'check', '--format', 'json', ...paths);
  expect(result.signal, `killed by the hang guard: ${result.stderr}`).toBeNull();
  expect([0, 1, 2]).toContain(result.code);
  expect(result.stderr).not.toMatch(/internal error|heap out of memory|\n\s+at /);
  const diagnostics = JSON.parse(result.stdout) as JsonDiagnostic[];
  expect(Array.isArray(diagnostics)).toBe(true);
  return { ...result, diagnostics };
}

describe.runIf(unix)('check --format json on hostile folders', { timeout: HANG_GUARD_MS * 2 }, () => {
  it('builds the CLI first', () => {
    expect(runCli(['--version']).status).toBe(0);
  });

  it('symbolic-link loops: each folder once, however many links (1 to 32) lead back to it', () => {
    for (const links of [1, 2, 4, 8, 16, 32]) {
      const files: Record<string, string | ((path: string) => void)> = { 'a.playbook.yml': PLAYBOOK };
      for (let i = 0; i < links; i++) files[`link${i}`] = link('.');
      const result = checkJson(folder(`loops-${links}`, files));
      expect(result.code).toBe(0);
      expect(result.diagnostics).toEqual([]); // one file, so no PB110 against copies of itself
    }
  });

  it('loops between folders, and a loop with no playbook at all (it used to run until killed)', () => {
    const crossed = folder('crossed', {
      'a/one.playbook.yml': PLAYBOOK.replace('Fine', 'One'),
      'a/to-b': link('../b'),
      'b/two.playbook.yml': PLAYBOOK.replace('Fine', 'Two'),
      'b/to-a': link('../a'),
      'b/up': link('..'),
      'b/self': link('.'),
    });
    expect(checkJson(crossed).diagnostics).toEqual([]);
    const empty: Record<string, (path: string) => void> = {};
    for (let i = 0; i < 16; i++) empty[`x${i}`] = link('.');
    const result = cli(folder('loops-empty', empty), 'check', '--format', 'json');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'kairoku-playbook: no playbooks found in this folder (*.playbook.yml, or *.yml directly in a playbooks/ folder)\n',
    );
  });

  it('a playbook that is /dev/zero or a FIFO: one PB100 each, naming the file, read not at all', () => {
    const dir = folder('devices', {
      'ok.playbook.yml': PLAYBOOK,
      'zero.playbook.yml': link('/dev/zero'),
      'pipe.playbook.yml': fifo,
      'playbooks/random.yml': link('/dev/urandom'),
    });
    const result = checkJson(dir);
    expect(result.code).toBe(1);
    expect(result.diagnostics.map((d) => [d.file, d.code, d.message])).toEqual([
      [
        'pipe.playbook.yml',
        'PB100',
        'this file is not read: it is a named pipe (FIFO), not a regular file; only regular files are read as a playbook',
      ],
      [
        'playbooks/random.yml',
        'PB100',
        'this file is not read: it is a character device, not a regular file; only regular files are read as a playbook',
      ],
      [
        'zero.playbook.yml',
        'PB100',
        'this file is not read: it is a character device, not a regular file; only regular files are read as a playbook',
      ],
    ]);
    // Named on the command line too: refused, not waited on.
    const named = checkJson(dir, 'pipe.playbook.yml', 'zero.playbook.yml');
    expect(named.diagnostics.map((d) => d.file)).toEqual(['pipe.playbook.yml', 'zero.playbook.yml']);
  });

  it('regular files over the 8 MiB limit: refused by their size, before they are read', () => {
    const dir = folder('large', {
      'huge.playbook.yml': (path) => {
        writeFileSync(path, '');
        truncateSync(path, 16 * 1024 ** 3); // 16 GiB, sparse: reading it whole would end the process
      },
      'dense.playbook.yml': `${PLAYBOOK}${'# padding\n'.repeat(900_000)}`, // 9 MB written
      'fits.playbook.yml': `${PLAYBOOK.replace('Fine', 'Fits')}${'# padding\n'.repeat(800_000)}`,
    });
    const result = checkJson(dir);
    expect(result.code).toBe(1);
    const message = 'this file is not read: it is larger than 8 MiB, the limit for a playbook; split it';
    expect(result.diagnostics.map((d) => [d.file, d.code, d.message])).toEqual([
      ['dense.playbook.yml', 'PB100', message],
      ['huge.playbook.yml', 'PB100', message],
    ]);
  });

  it('folder trees of growing size: walked whole up to the limit, refused past it with JSON still on stdout', () => {
    for (const folders of [1_000, 100_001]) {
      const dir = folder(`tree-${folders}`, { 'a.playbook.yml': PLAYBOOK });
      for (let i = 0; i < folders; i++)
        mkdirSync(join(dir, `d${Math.floor(i / 1000)}`, `e${i % 1000}`), { recursive: true });
      writeFileSync(join(dir, 'd0', 'e1', 'deep.playbook.yml'), PLAYBOOK.replace('Fine', 'Deep'));
      const result = checkJson(dir);
      if (folders <= 1_000) {
        expect(result.code).toBe(0);
        expect(result.stderr).toBe('');
      } else {
        // 100,001 leaves and their parents: past the 100,000-folder limit.
        expect(result.code).toBe(2);
        expect(result.stderr).toBe(
          'kairoku-playbook: stopped looking for playbooks in the current folder after 100,000 folders (the limit); check a smaller folder\n',
        );
      }
      expect(result.diagnostics).toEqual([]); // a and deep: found early in the walk, both clean
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a tree deeper than 64 folders: the rest is checked, the deep part named, exit 2', () => {
    const dir = folder('deep', { 'top.playbook.yml': PLAYBOOK });
    const chain = join(dir, ...Array.from({ length: 70 }, () => 'd'));
    mkdirSync(chain, { recursive: true });
    writeFileSync(join(chain, 'bottom.playbook.yml'), PLAYBOOK.replace('Fine', 'Bottom'));
    const result = checkJson(dir);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `kairoku-playbook: did not look for playbooks in ${dir}/${Array.from({ length: 65 }, () => 'd').join('/')}: it is more than 64 folders below the current folder (the limit)\n`,
    );
    expect(result.diagnostics).toEqual([]);
  });
});

describe.runIf(unix)('the other readers of files', { timeout: HANG_GUARD_MS * 2 }, () => {
  it('test: the same bounded walk (loops), and a FIFO test file refused', () => {
    const files: Record<string, string | ((path: string) => void)> = {
      'pr.yml': PLAYBOOK,
      'pr.test.yml': 'steps:\n  only:\n    - { outcome: done }\nexpect:\n  status: completed\n',
      'pipe.test.yml': fifo,
    };
    for (let i = 0; i < 8; i++) files[`x${i}`] = link('.');
    const test = cli(folder('tests', files), 'test');
    expect(test.signal).toBeNull();
    expect(test.code).toBe(1);
    expect(test.stdout).toContain('✓ pr.test.yml');
    expect(test.stdout).toContain('✗ pipe.test.yml');
    expect(test.stdout).toContain('this file is not read: it is a named pipe (FIFO)');
  });

  it('run --scenario that is a FIFO or /dev/zero: a usage error naming the file', () => {
    const dir = folder('scenario', {
      'pipe.yml': fifo,
      'zero.yml': link('/dev/zero'),
      'playbooks/pr.yml': PLAYBOOK,
    });
    for (const scenario of ['pipe.yml', 'zero.yml']) {
      const result = cli(dir, 'run', 'playbooks/pr.yml', '--scenario', scenario, '--json');
      expect(result.signal).toBeNull();
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `^kairoku-playbook: scenario ${scenario}: this file is not read: it is a (named pipe|character device)`,
        ),
      );
    }
  });

  it('runs list with a FIFO and /dev/zero among the run files: reported, not waited on', () => {
    const home = join(root, 'home');
    mkdirSync(join(home, 'runs'), { recursive: true });
    execFileSync('mkfifo', [join(home, 'runs', 'pipe.json')]);
    symlinkSync('/dev/zero', join(home, 'runs', 'zero.json'));
    const result = cli(root, 'runs', 'list');
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `cannot read ${join(home, 'runs', 'pipe.json')}: it is a named pipe (FIFO)`,
    );
    expect(result.stderr).toContain(
      `cannot read ${join(home, 'runs', 'zero.json')}: it is a character device`,
    );
    rmSync(join(home, 'runs'), { recursive: true, force: true });
  });

  it('runner --token-file that is a FIFO or /dev/zero: refused with the reason', () => {
    for (const token of [join(folder('token', { pipe: fifo }), 'pipe'), '/dev/zero']) {
      const result = cli(
        root,
        'runner',
        '--app',
        'http://127.0.0.1:9',
        '--token-file',
        token,
        '--repo',
        REPO,
      );
      expect(result.signal).toBeNull();
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(`^kairoku runner: cannot read the token file ${token}: it is a`),
      );
    }
  });

  it('the manager protocol reads the workspace the same way (validate_playbooks)', () => {
    const dir = folder('mcp', {
      'ok.playbook.yml': PLAYBOOK,
      'pipe.playbook.yml': fifo,
      'zero.playbook.yml': link('/dev/zero'),
      loop: link('.'),
    });
    // In a child: before the fix, opening the FIFO blocked the thread for good.
    const validate = (workspace: string) => {
      const script = `import(${JSON.stringify(pathToFileURL(join(REPO, 'runtime/dist/mcp/index.js')).href)}).then((m) => {
        try { process.stdout.write(m.validationJson(m.readWorkspace(process.argv[1]))); }
        catch (error) { process.stdout.write(JSON.stringify({ [error.name]: error.message })); }
      })`;
      const result = spawnSync(process.execPath, [HEAP, '--input-type=module', '-e', script, workspace], {
        encoding: 'utf8',
        timeout: HANG_GUARD_MS,
        killSignal: 'SIGKILL',
      });
      expect(result.signal).toBeNull();
      return JSON.parse(result.stdout) as unknown;
    };
    const diagnostics = validate(dir) as JsonDiagnostic[];
    expect(diagnostics.map((d) => [d.file, d.code, d.message])).toEqual([
      ['pipe.playbook.yml', 'PB100', expect.stringContaining('a named pipe (FIFO)')],
      ['zero.playbook.yml', 'PB100', expect.stringContaining('a character device')],
    ]);
    // A workspace past a walk limit is refused whole, saying so, not listed in part.
    const deep = folder('mcp-deep', { 'ok.playbook.yml': PLAYBOOK });
    mkdirSync(join(deep, ...Array.from({ length: 70 }, () => 'd')), { recursive: true });
    expect(validate(deep)).toEqual({
      ToolError: `did not look for playbooks in ${deep}/${Array.from({ length: 65 }, () => 'd').join('/')}: it is more than 64 folders below ${deep} (the limit); start the server with --workspace on the folder that holds the playbooks`,
    });
  });
});

// ---- the language server ---------------------------------------------------------------------------

interface Server {
  child: ChildProcess;
  connection: MessageConnection;
  stderr: string[];
}

/** `kairoku-playbook lsp --stdio` in a child with a bounded heap, initialized on `rootUri`. */
async function startServer(rootPath: string): Promise<Server> {
  const child = spawn(process.execPath, [HEAP, CLI, 'lsp', '--stdio'], { stdio: 'pipe' });
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout!),
    new StreamMessageWriter(child.stdin!),
  );
  connection.onNotification(() => undefined);
  connection.onRequest(() => null);
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri: pathToFileURL(rootPath).href,
    capabilities: { textDocument: { diagnostic: {} } },
  });
  await connection.sendNotification('initialized', {});
  return { child, connection, stderr };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  try {
    await server.connection.sendRequest('shutdown');
    await server.connection.sendNotification('exit');
  } catch {
    server.child.kill('SIGKILL');
  }
  await exited;
  server.connection.dispose();
}

/** A request the server must answer: the hover of a document opened after the scan started. */
async function stillAnswers(server: Server, path: string): Promise<void> {
  const uri = pathToFileURL(path).href;
  await server.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: 1, text: PLAYBOOK },
  });
  const symbols = (await server.connection.sendRequest('textDocument/documentSymbol', {
    textDocument: { uri },
  })) as { name: string }[];
  expect(symbols.map((s) => s.name)).toContain('steps');
  const stats = (await server.connection.sendRequest('kairoku-playbook/stats')) as { rss: number };
  expect(stats.rss).toBeGreaterThan(0);
}

describe.runIf(unix)('the language server on hostile roots', { timeout: HANG_GUARD_MS * 2 }, () => {
  let hostile = '';
  beforeAll(() => {
    const files: Record<string, string | ((path: string) => void)> = {
      'ok.playbook.yml': PLAYBOOK,
      'zero.playbook.yml': link('/dev/zero'),
      'pipe.playbook.yml': fifo,
      'huge.playbook.yml': (path) => {
        writeFileSync(path, '');
        truncateSync(path, 16 * 1024 ** 3);
      },
    };
    for (let i = 0; i < 16; i++) files[`x${i}`] = link('.');
    hostile = folder('lsp-hostile', files);
    for (let i = 0; i < 5_000; i++)
      mkdirSync(join(hostile, 'tree', `d${Math.floor(i / 1000)}`, `e${i % 1000}`), { recursive: true });
  }, HANG_GUARD_MS);

  it('answers on a root of loops, devices, a FIFO, a 16 GiB file and 5,000 folders, and reports the refused files', async () => {
    const server = await startServer(hostile);
    try {
      await stillAnswers(server, join(hostile, 'open.playbook.yml'));
      // Once discovery settles, the refused files are in the workspace's diagnostics, one PB100 each.
      let report: { items: { uri: string; items: { code: string; message: string }[] }[] } = { items: [] };
      for (let tries = 0; tries < 600; tries++) {
        report = await server.connection.sendRequest('workspace/diagnostic', { previousResultIds: [] });
        const reported = (name: string) => report.items.some((item) => item.uri.endsWith(`/${name}`));
        if (['huge.playbook.yml', 'pipe.playbook.yml', 'zero.playbook.yml'].every(reported)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const refused = Object.fromEntries(
        report.items
          .filter((item) => item.items.some((d) => d.code === 'PB100'))
          .map((item) => [item.uri.slice(item.uri.lastIndexOf('/') + 1), item.items.map((d) => d.message)]),
      );
      expect(refused).toEqual({
        'huge.playbook.yml': [
          'this file is not read: it is larger than 8 MiB, the limit for a playbook; split it',
        ],
        'pipe.playbook.yml': [
          'this file is not read: it is a named pipe (FIFO), not a regular file; only regular files are read as a playbook',
        ],
        'zero.playbook.yml': [
          'this file is not read: it is a character device, not a regular file; only regular files are read as a playbook',
        ],
      });
    } finally {
      await stopServer(server);
    }
    expect(server.stderr.join('')).not.toMatch(/heap out of memory|internal error/);
  });

  it('answers with rootUri / (a walk of the whole machine, in slices between requests)', async () => {
    const server = await startServer('/');
    try {
      await stillAnswers(server, join(root, 'slash.playbook.yml'));
      await stillAnswers(server, join(root, 'again.playbook.yml'));
    } finally {
      await stopServer(server);
    }
    expect(server.stderr.join('')).not.toMatch(/heap out of memory|internal error/);
  });
});
