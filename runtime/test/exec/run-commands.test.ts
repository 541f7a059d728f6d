import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MASK } from '@kairoku-playbook/machine';
import { BoundedOutput } from '../../src/exec/bounded-output.js';
import { killAllChecks, runCheckCommands } from '../../src/exec/run-commands.js';
import type { RunCommandsOptions } from '../../src/exec/run-commands.js';
import { alive, tempDir, waitFor } from '../../../test/kit/index.js';

/** Real processes under /bin/sh. No durations are asserted: waits are bounds, not measurements. */
const work = tempDir('exec-run-');
const fixtures = new URL('../fixtures/check-output/', import.meta.url).pathname;
const escaped: number[] = [];
afterAll(() => {
  for (const pid of escaped) reap(pid);
  rmSync(work, { recursive: true, force: true });
});

let files = 0;
const pidFile = () => join(work, `pids-${++files}`);

function run(commands: string[], options: Partial<RunCommandsOptions> = {}) {
  return runCheckCommands({ commands, cwd: work, env: {}, timeoutMs: 60_000, killGraceMs: 300, ...options });
}

/** `name pid` lines a command wrote, once there are `count` of them. */
async function pidsIn(file: string, count: number): Promise<Record<string, number>> {
  const read = (): Record<string, number> =>
    existsSync(file)
      ? Object.fromEntries(
          readFileSync(file, 'utf8')
            .split('\n')
            .filter((line) => /^\w+ \d+$/.test(line))
            .map((line) => [line.split(' ')[0]!, Number(line.split(' ')[1])]),
        )
      : {};
  await waitFor(`${count} pids in ${file}`, () => Object.keys(read()).length >= count, 15_000);
  return read();
}

function reap(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** A command that starts a grandchild in the background, writes both pids, and waits. */
function family(file: string, trap = ''): string {
  return `${trap}sh -c 'sleep 300 & echo "grandchild $!" >> ${file}; echo "child $$" >> ${file}; sleep 300'`;
}

describe('runCheckCommands', { timeout: 20_000 }, () => {
  it('runs the commands in order in the directory and stops at the first that fails', async () => {
    const result = await run(['echo one; pwd', 'echo two; exit 3', 'echo three']);
    expect(result.commandsRun).toBe(2);
    expect(result.outcome).toBe('fail');
    expect(result.outputs.exit_code).toBe(3);
    expect(result.output).toBe(`one\n${work}\ntwo\n`);
    expect(result.summary.split('\n')[0]).toBe('fail: command 2 of 3 (echo two; exit 3) exited with 3');
    expect(result).toMatchObject({ timedOut: false, aborted: false });
  });

  it('passes when every command exits 0 and no test failed', async () => {
    const result = await run(['echo lint ok', 'printf "ok 1 - a\\nok 2 - b\\n"']);
    expect(result).toMatchObject({ outcome: 'pass', commandsRun: 2 });
    expect(result.outputs).toEqual({ passed: 2, failed: 0, skipped: 0, todo: 0, exit_code: 0 });
    expect(result.summary.split('\n')[0]).toBe(
      'pass: all 2 commands exited 0; 2 passed, 0 failed, 0 skipped, 0 todo (tap)',
    );
  });

  it('fails when every command exits 0 but a runner counted a failed test', async () => {
    const result = await run(["echo 'Tests:       1 failed, 2 passed, 3 total'"]);
    expect(result.outcome).toBe('fail');
    expect(result.outputs).toEqual({ passed: 2, failed: 1, skipped: 0, todo: 0, exit_code: 0 });
    expect(result.summary).toMatch(/^fail: 1 failed though every command exited 0/);
  });

  it('sums the counts of several test commands', async () => {
    const result = await run([
      `cat ${fixtures}jest-pass.txt`,
      `cat ${fixtures}pytest-pass.txt && cat ${fixtures}cargo-pass.txt`,
    ]);
    expect(result.outputs).toEqual({ passed: 10, failed: 0, skipped: 3, todo: 1, exit_code: 0 });
    expect(result.summary.split('\n')[0]).toMatch(/\(jest, pytest, cargo\)$/);
  });

  it('joins stderr to stdout, in order', async () => {
    const result = await run(['echo out; echo err >&2; echo out2']);
    expect(result.output).toBe('out\nerr\nout2\n');
  });

  it('gives the command its env on top of this process’s, and masks the values in what it keeps', async () => {
    const env = { API_TOKEN: 'sk-very-secret-123', SHORT: 'abc' };
    const result = await run(
      [
        'test "$API_TOKEN" = sk-very-secret-123 && test -n "$PATH"',
        'echo "token=$API_TOKEN short=$SHORT"; echo "$API_TOKEN" >&2; exit 1',
      ],
      { env },
    );
    expect(result.commandsRun).toBe(2);
    expect(result.output).toBe(`token=${MASK} short=abc\n${MASK}\n`);
    expect(result.summary).toContain(`token=${MASK}`);
    expect(result.summary).not.toContain('sk-very-secret-123');
  });

  it('masks a secret in the command line the summary quotes', async () => {
    const result = await run(['echo hidden-value >/dev/null; exit 2'], { env: { KEY: 'hidden-value' } });
    expect(result.summary.split('\n')[0]).toBe(
      `fail: command 1 of 1 (echo ${MASK} >/dev/null; exit 2) exited with 2`,
    );
  });

  it('keeps 5 MB of output within the limit, says what it dropped, and still reads the counts', async () => {
    const result = await run([
      "yes 0123456789abcdef | head -c 5000000; echo; echo 'Tests:       7 passed, 7 total'",
    ]);
    expect(result.outcome).toBe('pass');
    expect(result.outputs.passed).toBe(7);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(64 * 1024 + 100);
    expect(result.output).toMatch(/^0123456789abcdef\n/);
    expect(result.output).toMatch(/\n\[\.\.\. \d+ bytes of output dropped \.\.\.\]\n0123456789abcdef\n/);
    expect(result.output).toMatch(/Tests: {7}7 passed, 7 total\n$/);
    const dropped = Number(/\[\.\.\. (\d+) bytes/.exec(result.output)![1]);
    const kept =
      Buffer.byteLength(result.output) - Buffer.byteLength(`[... ${dropped} bytes of output dropped ...]\n`);
    expect(kept + dropped).toBe(5_000_000 + 1 + 'Tests:       7 passed, 7 total\n'.length);
    expect(Buffer.byteLength(result.summary)).toBeLessThanOrEqual(4096);
    expect(result.summary).toMatch(/Tests: {7}7 passed, 7 total$/);
  });

  it('on timeout kills the whole process group, grandchildren too, and says so', async () => {
    const file = pidFile();
    const result = await run(['echo first', family(file), 'echo never'], { timeoutMs: 2000 });
    const pids = await pidsIn(file, 2);
    expect(result).toMatchObject({ outcome: 'fail', timedOut: true, aborted: false, commandsRun: 2 });
    expect(result.outputs.exit_code).toBe(128 + 15);
    expect(result.summary.split('\n')[0]).toMatch(/^fail: timed out after 2s in command 2 of 3/);
    expect(result.output).not.toContain('never');
    await waitFor('the group to be gone', () => !alive(pids.child!) && !alive(pids.grandchild!), 15_000);
  });

  it('on abort does the same, and runs no further command', async () => {
    const file = pidFile();
    const controller = new AbortController();
    const running = run([family(file), 'echo never'], { signal: controller.signal });
    const pids = await pidsIn(file, 2);
    controller.abort('canceled by request');
    const result = await running;
    expect(result).toMatchObject({ outcome: 'fail', timedOut: false, aborted: true, commandsRun: 1 });
    expect(result.summary.split('\n')[0]).toMatch(/^fail: stopped \(canceled by request\) in command 1 of 2/);
    await waitFor('the group to be gone', () => !alive(pids.child!) && !alive(pids.grandchild!), 15_000);
  });

  it('sends SIGKILL after the grace period to a group that ignores SIGTERM', async () => {
    const file = pidFile();
    const controller = new AbortController();
    const running = run([family(file, "trap '' TERM; ")], { signal: controller.signal });
    const pids = await pidsIn(file, 2);
    controller.abort();
    const result = await running;
    expect(result.outputs.exit_code).toBe(128 + 9);
    await waitFor('the group to be gone', () => !alive(pids.child!) && !alive(pids.grandchild!), 15_000);
  });

  it('ends what a command left running in its group when it exits', async () => {
    const file = pidFile();
    const result = await run([`sleep 300 >/dev/null 2>&1 & echo "left $!" >> ${file}`]);
    expect(result.outcome).toBe('pass');
    const pids = await pidsIn(file, 1);
    await waitFor('the leftover to be gone', () => !alive(pids.left!), 15_000);
  });

  it('does not wait for ever on a process that left the group holding the output open', async () => {
    const file = pidFile();
    // it has left the group (and written its pid) before the command exits
    const result = await run([
      `setsid sh -c 'echo "escaped $$" >> ${file}; exec sleep 300' & until grep -qs escaped ${file}; do sleep 0.05; done; echo started`,
    ]);
    const pids = await pidsIn(file, 1);
    escaped.push(pids.escaped!);
    expect(result.outcome).toBe('pass');
    expect(result.output).toBe('started\n');
  });

  it('runs nothing when the signal was aborted before it started', async () => {
    const marker = join(work, 'ran');
    const result = await run([`touch ${marker}`], { signal: AbortSignal.abort('shutdown') });
    expect(result).toMatchObject({ outcome: 'fail', aborted: true, commandsRun: 0 });
    expect(result.summary).toBe('fail: stopped (shutdown) before any command ran');
    expect(existsSync(marker)).toBe(false);
  });

  it('fails without running anything when the directory does not exist', async () => {
    const result = await run(['echo hi'], { cwd: join(work, 'missing') });
    expect(result).toMatchObject({ outcome: 'fail', commandsRun: 0 });
    expect(result.outputs.exit_code).toBe(-1);
    expect(result.summary).toMatch(/^fail: the check's directory .*missing does not exist/);
  });

  it('killAllChecks stops every check in progress', async () => {
    const [a, b] = [pidFile(), pidFile()];
    const runs = [run([family(a)]), run([family(b)])];
    const pids = [...Object.values(await pidsIn(a, 2)), ...Object.values(await pidsIn(b, 2))];
    await killAllChecks();
    for (const result of await Promise.all(runs)) {
      expect(result).toMatchObject({ aborted: true, outcome: 'fail' });
      expect(result.summary).toMatch(/^fail: stopped \(shutdown\)/);
    }
    await waitFor('every group to be gone', () => pids.every((pid) => !alive(pid)), 15_000);
  });
});

describe('BoundedOutput', () => {
  it('masks a secret the cut went through', () => {
    const output = new BoundedOutput(40);
    // the head keeps 20 bytes: the cut falls inside the secret, with no newline to cut at instead
    output.write(`aaaaaaaaaaaaaaaTOPSECRET${'b'.repeat(100)}TOPSECRETcccccc`);
    const text = output.text(['TOPSECRET']);
    expect(text).not.toMatch(/TOPS|CRET/);
    expect(text.startsWith(`aaaaaaaaaaaaaaa${MASK}\n[... `)).toBe(true);
    expect(text.endsWith(`${MASK}cccccc`)).toBe(true);
  });

  it('keeps everything when it fits', () => {
    const output = new BoundedOutput(10);
    output.write('0123');
    output.write(Buffer.from('456789'));
    expect(output.text([])).toBe('0123456789');
  });
});
