/**
 * One atomic write (the runtime's `writeFileAtomic`) serves the run store and the CLI's `compile -o`,
 * and it refuses a target that is not a regular file: renaming the temp file over a FIFO, a device or a
 * folder would replace that entry instead of writing to it. (The CLI had its own `writeFileAtomic` with
 * this refusal, wrapped around the runtime's; now there is one.)
 */
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileWriteError, writeFileAtomic } from '@kairoku-playbook/runtime';
import { runCli, tempDir } from './kit/index.js';

const folder = tempDir('kp-write-targets-');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const canMakeFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).status === 0;

function fifo(name: string): string {
  const path = join(folder, name);
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  return path;
}

/** The error `writeFileAtomic` throws, checked to be a `FileWriteError`. */
function refusal(path: string): FileWriteError {
  let thrown: unknown;
  try {
    writeFileAtomic(path, 'data');
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(FileWriteError);
  return thrown as FileWriteError;
}

describe('writeFileAtomic refuses a target that is not a regular file, and leaves it as it was', () => {
  it.runIf(canMakeFifo)('a FIFO', () => {
    const path = fifo('pipe');
    expect(refusal(path).message).toBe(
      `could not write ${path}: it is a named pipe (FIFO), not a regular file`,
    );
    expect(lstatSync(path).isFIFO()).toBe(true);
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.runIf(canMakeFifo)('a symbolic link to a FIFO (the link is followed)', () => {
    const path = join(folder, 'link-to-pipe');
    symlinkSync(fifo('linked-pipe'), path);
    expect(refusal(path).message).toContain('it is a named pipe (FIFO), not a regular file');
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });

  it('a folder', () => {
    const path = join(folder, 'a-folder');
    mkdirSync(path);
    const error = refusal(path);
    expect(error.code).toBe('EISDIR');
    expect(error.message).toBe(`could not write ${path}: it is a folder`);
    expect(lstatSync(path).isDirectory()).toBe(true);
  });

  it('still writes a new file, and replaces a regular one', () => {
    const path = join(folder, 'state.json');
    writeFileAtomic(path, 'first');
    writeFileAtomic(path, 'second');
    expect(readFileSync(path, 'utf8')).toBe('second');
  });
});

describe('compile -o', () => {
  function compile(output: string) {
    const result = runCli(['compile', 'playbooks/pr.yml', '-o', output]);
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it.runIf(canMakeFifo)('to a FIFO: exit 2, one line saying why, and the FIFO left as it was', () => {
    const path = fifo('ir-pipe');
    expect(compile(path)).toEqual({
      code: 2,
      stdout: '',
      stderr: `kairoku-playbook: could not write ${path}: it is a named pipe (FIFO), not a regular file\n`,
    });
    expect(lstatSync(path).isFIFO()).toBe(true);
  });

  it('to a new file: the IR, with the mode the umask gives (not the run store private 0600)', () => {
    const path = join(folder, 'pr.ir.json');
    expect(compile(path).code).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toHaveProperty('ir');
    const umask = process.umask();
    expect(lstatSync(path).mode & 0o777).toBe(0o666 & ~umask);
  });
});
