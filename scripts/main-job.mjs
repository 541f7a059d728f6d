#!/usr/bin/env node
// The README's main job (`npm run main-job`): build, check every bundled playbook, then run
// playbooks/pr.yml on the embedded sim backend. On a terminal the run's `ship` gate asks the person
// at it; without one (CI, a pipe) nothing could answer, so this script, not the tool, decides it with
// `--gate ship=approve`. Whether there is a terminal is decided here, from this process's own
// standard input and output: a shell test such as `$([ -t 0 ] && [ -t 1 ] || …)` inside npm's
// script line runs in a command substitution whose output is a pipe, so it never saw one.
//
//   node scripts/main-job.mjs [--no-build]     (--no-build: the build is there already, as in tests)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../cli/dist/kairoku-playbook.js', import.meta.url));
const task = 'task=Add a --json flag to the CLI';

/**
 * One command with this process's standard streams (so the run sees the terminal, when there is
 * one); its exit code. Ctrl-C reaches the child too (one process group): this process waits for
 * the child to settle (the run cancels its agents and exits 130) instead of dying before it.
 */
function step(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repo, stdio: 'inherit' });
    const ignore = () => {};
    process.on('SIGINT', ignore);
    child.on('error', (error) => {
      console.error(`main-job: could not start ${command}: ${error.message}`);
      resolve(2);
    });
    child.on('close', (code, signal) => {
      process.off('SIGINT', ignore);
      resolve(code ?? (signal === 'SIGINT' ? 130 : 1));
    });
  });
}

const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true;
const build = !process.argv.slice(2).includes('--no-build');
const gate = terminal ? [] : ['--gate', 'ship=approve'];

let code = build ? await step(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build']) : 0;
if (code === 0) code = await step(process.execPath, [cli, 'check', 'playbooks']);
if (code === 0) {
  if (!terminal) console.log('main-job: no terminal to ask at, so --gate ship=approve decides the ship gate');
  code = await step(process.execPath, [
    cli,
    'run',
    'playbooks/pr.yml',
    '--backend',
    'sim',
    '--input',
    task,
    ...gate,
  ]);
}
process.exitCode = code;
