#!/usr/bin/env node
// Hostile files and folders (issue 11): time and peak memory of `check --format json` and of the
// language server on the largest input of each class that test/hostile/files.test.ts tries.
//
//   node bench/hostile-files.mjs [--cli FILE] [--guard SECONDS] [--only REGEX] [--no-lsp] [--no-slash]
//
// Each input is made in a fresh folder (on a tmpfs of its own when mounting is allowed, as root;
// else under the system's temp folder), then:
//   check   `node --max-old-space-size=1024 CLI check --format json` in that folder: wall time from
//           spawn to exit and CPU time, peak resident memory (the child's own maxRSS and CPU time,
//           written to stderr at exit by a preload), exit code, whether stdout is JSON, and the first
//           line of stderr. A child still running after --guard seconds (default 120) is killed and
//           reported as a hang (its peak memory then read from /proc just before).
//   lsp     `CLI lsp --stdio` initialized on the folder (rootUri): time to answer a documentSymbol
//           request sent right after `initialized` ("lsp answer"), then the stats request every
//           250 ms until the server says its walk ended (`discovering: false`; an older build that
//           does not say: until its count of playbooks holds for 2 s) ("lsp walk done"), and its
//           peak maxRSS at exit. Also rootUri `/` (unless --no-slash).
// `--cli` measures another build (an older one kept aside, for a before/after). Nothing here is a
// test and nothing is asserted: it prints a table and writes bench/out/hostile-files.json.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import rpc from 'vscode-jsonrpc/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;
const benchDir = dirname(fileURLToPath(import.meta.url));
const repo = dirname(benchDir);
const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const cli = resolve(option('--cli') ?? join(repo, 'cli/dist/kairoku-playbook.js'));
const guardMs = Number(option('--guard') ?? 120) * 1000;
if (!existsSync(cli)) {
  console.error(`no CLI at ${cli}: build it first (npm run build)`);
  process.exit(2);
}

const PLAYBOOK = 'version: 1\ntitle: Fine\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n';

// The child's own peak memory, written to stderr at exit (after whatever the CLI wrote).
const workDir = mkdtempSync(join(os.tmpdir(), 'kp-bench-hostile-'));
const preload = join(workDir, 'max-rss.cjs');
writeFileSync(
  preload,
  `process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeSync(2, '\\nKP_USAGE=' + u.maxRSS + ' ' + Math.round((u.userCPUTime + u.systemCPUTime) / 1000) + '\\n'); });`,
);
const inputs = join(workDir, 'inputs');
mkdirSync(inputs);
const mounted =
  process.platform === 'linux' &&
  spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1g,nr_inodes=1m', 'tmpfs', inputs]).status === 0;

function cleanUp() {
  if (mounted) spawnSync('umount', ['--lazy', inputs]);
  rmSync(workDir, { recursive: true, force: true });
}

/** A folder of inputs; `make` fills it. */
function input(name, make) {
  const dir = join(inputs, name);
  mkdirSync(dir, { recursive: true });
  make(dir);
  return dir;
}
const links = (count, withPlaybook) => (dir) => {
  if (withPlaybook) writeFileSync(join(dir, 'a.playbook.yml'), PLAYBOOK);
  for (let i = 0; i < count; i++) symlinkSync('.', join(dir, `link${i}`));
};
const tree = (folders) => (dir) => {
  writeFileSync(join(dir, 'a.playbook.yml'), PLAYBOOK);
  for (let i = 0; i < folders; i++)
    mkdirSync(join(dir, `d${Math.floor(i / 1000)}`, `e${i % 1000}`), { recursive: true });
};

const CASES = [
  ['symlink loops: 128 links to . beside a playbook', links(128, true)],
  ['symlink loops: 128 links to ., no playbook', links(128, false)],
  ['a playbook linked to /dev/zero', (dir) => symlinkSync('/dev/zero', join(dir, 'zero.playbook.yml'))],
  ['a playbook that is a FIFO', (dir) => execFileSync('mkfifo', [join(dir, 'pipe.playbook.yml')])],
  [
    'a 16 GiB playbook (sparse)',
    (dir) => {
      writeFileSync(join(dir, 'huge.playbook.yml'), '');
      truncateSync(join(dir, 'huge.playbook.yml'), 16 * 1024 ** 3);
    },
  ],
  [
    'a 100 MB playbook (written)',
    (dir) => writeFileSync(join(dir, 'dense.playbook.yml'), `${PLAYBOOK}${'# padding\n'.repeat(10_000_000)}`),
  ],
  ['a tree of 1,000 folders', tree(1_000)],
  ['a tree of 10,000 folders', tree(10_000)],
  ['a tree of 100,001 folders (past the limit)', tree(100_001)],
  [
    'a chain of 1,000 nested folders',
    (dir) => {
      writeFileSync(join(dir, 'a.playbook.yml'), PLAYBOOK);
      let path = dir;
      for (let i = 0; i < 1000; i += 100) {
        path = join(path, ...Array.from({ length: 100 }, () => 'd'));
        mkdirSync(path, { recursive: true });
      }
    },
  ],
  [
    'one folder of 200,000 files',
    (dir) => {
      writeFileSync(join(dir, 'a.playbook.yml'), PLAYBOOK);
      for (let i = 0; i < 200_000; i++) writeFileSync(join(dir, `f${i}.txt`), '');
    },
  ],
];

/** The child's peak resident memory (bytes) and CPU time (ms), from the preload's last line. */
const usageOf = (stderr) => {
  const found = /KP_USAGE=(\d+) (\d+)\n?$/.exec(stderr);
  return found
    ? { maxRss: Number(found[1]) * 1024, cpuMs: Number(found[2]) }
    : { maxRss: undefined, cpuMs: undefined };
};
const mb = (bytes) => (bytes === undefined ? '?' : `${(bytes / 1024 / 1024).toFixed(0)} MB`);
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** The peak resident memory of a live process (Linux: VmHWM), for one about to be killed as a hang. */
function peakOf(pid) {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Kills `child` after the guard, noting its peak memory first (a killed child reports none itself). */
function guard(child) {
  const state = { peak: undefined };
  state.timer = setTimeout(() => {
    state.peak = peakOf(child.pid);
    child.kill('SIGKILL');
  }, guardMs);
  return state;
}

async function measureCheck(dir) {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=1024', '--require', preload, cli, 'check', '--format', 'json'],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const hangGuard = guard(child);
  let stdout = '';
  let stderrText = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderrText += chunk));
  const [code, signal] = await new Promise((resolve) => child.once('close', (...end) => resolve(end)));
  clearTimeout(hangGuard.timer);
  const ms = performance.now() - started;
  let json = true;
  try {
    JSON.parse(stdout);
  } catch {
    json = false;
  }
  const usage = usageOf(stderrText);
  const stderr = stderrText.replace(/\nKP_USAGE=\d+ \d+\n?$/, '');
  return {
    ms,
    ...usage,
    maxRss: usage.maxRss ?? hangGuard.peak,
    code,
    hang: signal === 'SIGKILL',
    json,
    stderr: stderr.split('\n')[0]?.slice(0, 140) ?? '',
  };
}

async function measureServer(rootPath) {
  const child = spawn(
    process.execPath,
    ['--max-old-space-size=1024', '--require', preload, cli, 'lsp', '--stdio'],
    {
      stdio: 'pipe',
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  // A request to a server that died (or was killed by the guard) is never answered: fail it then.
  const died = exited.then(() => {
    throw new Error('the server exited');
  });
  died.catch(() => undefined);
  const request = (method, params) => Promise.race([connection.sendRequest(method, params), died]);
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  connection.onNotification(() => undefined);
  connection.onRequest(() => null);
  connection.listen();
  const hangGuard = guard(child);
  const started = performance.now();
  const result = {
    answerMs: undefined,
    settledMs: undefined,
    playbooks: 0,
    maxRss: undefined,
    cpuMs: undefined,
    hang: false,
  };
  try {
    await request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(rootPath).href,
      capabilities: {},
    });
    await connection.sendNotification('initialized', {});
    const uri = pathToFileURL(join(inputs, 'open.playbook.yml')).href;
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: 1, text: PLAYBOOK },
    });
    await request('textDocument/documentSymbol', { textDocument: { uri } });
    result.answerMs = performance.now() - started;
    let last = -1;
    let stableSince = performance.now();
    while (performance.now() - started < guardMs) {
      const stats = await request('kairoku-playbook/stats');
      if (stats.discovering === false) {
        // This build says when its walk ends; older ones are watched until their count settles.
        stableSince = performance.now();
        last = stats.disk;
        break;
      }
      if (stats.disk !== last) {
        last = stats.disk;
        stableSince = performance.now();
      } else if (stats.discovering === undefined && performance.now() - stableSince > 2000) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    result.settledMs = stableSince - started;
    result.playbooks = last;
    await request('shutdown');
    await connection.sendNotification('exit');
  } catch {
    result.hang = true;
    child.kill('SIGKILL');
  }
  await exited;
  clearTimeout(hangGuard.timer);
  connection.dispose();
  const usage = usageOf(stderr);
  Object.assign(result, usage, { maxRss: usage.maxRss ?? hangGuard.peak });
  return result;
}

const results = [];
try {
  console.log(`CLI ${cli}`);
  console.log(
    `inputs on ${mounted ? 'a tmpfs' : os.tmpdir()}; node ${process.version}; ${os.cpus().length} CPUs; load ${os.loadavg()[0].toFixed(2)}\n`,
  );
  const header = [
    'input',
    'check wall (cpu)',
    'check peak',
    'exit',
    'JSON',
    'stderr',
    'lsp answer',
    'lsp walk done',
    'lsp peak',
  ];
  console.log(header.join(' | '));
  console.log(header.map(() => '---').join(' | '));
  const only = option('--only');
  for (const [name, make] of CASES.filter(([name]) => !only || new RegExp(only, 'i').test(name))) {
    const dir = input(name.replace(/[^a-z0-9]+/gi, '-'), make);
    const check = await measureCheck(dir);
    const lsp = args.includes('--no-lsp') ? undefined : await measureServer(dir);
    results.push({ name, check, lsp });
    console.log(
      [
        name,
        check.hang
          ? `hang (killed after ${seconds(guardMs)})`
          : `${seconds(check.ms)} (${seconds(check.cpuMs ?? 0)})`,
        mb(check.maxRss),
        check.code ?? '-',
        check.json ? 'yes' : 'no',
        check.stderr || '-',
        lsp ? (lsp.hang ? 'no answer' : seconds(lsp.answerMs)) : '-',
        lsp?.settledMs !== undefined ? seconds(lsp.settledMs) : '-',
        lsp ? mb(lsp.maxRss) : '-',
      ].join(' | '),
    );
    rmSync(dir, { recursive: true, force: true });
  }
  if (!args.includes('--no-lsp') && !args.includes('--no-slash')) {
    const lsp = await measureServer('/');
    results.push({ name: 'rootUri /', lsp });
    console.log(
      [
        'language server on rootUri /',
        '-',
        '-',
        '-',
        '-',
        '-',
        lsp.hang ? 'no answer' : seconds(lsp.answerMs),
        seconds(lsp.settledMs ?? 0),
        mb(lsp.maxRss),
      ].join(' | '),
    );
  }
} finally {
  cleanUp();
}
mkdirSync(join(benchDir, 'out'), { recursive: true });
writeFileSync(
  join(benchDir, 'out', 'hostile-files.json'),
  `${JSON.stringify({ cli, node: process.version, cpus: os.cpus().length, date: new Date().toISOString(), results }, null, 2)}\n`,
);
