/**
 * The CLI's `main` called in this process, as the tests of its commands call it: no colour, and what it
 * writes kept to be looked at.
 */
import { main } from '../src/main.js';
import { REPO } from '../../test/kit/index.js';

function capture(argv: readonly string[], cwd: string) {
  const out = { stdout: '', stderr: '' };
  const code = main(argv, {
    cwd,
    stdout: (text) => (out.stdout += text),
    stderr: (text) => (out.stderr += text),
    color: false,
    colorStderr: false,
  });
  return { code, out };
}

/** A command run in `cwd` (the repository by default): its exit code and what it wrote so far. */
export function runMain(argv: readonly string[], cwd: string = REPO) {
  const { code, out } = capture(argv, cwd);
  return { code, ...out };
}

/** The same for a command that may end later (`serve`, `check --watch`, a live run): awaited, then read. */
export async function runMainToEnd(argv: readonly string[], cwd: string = REPO) {
  const { code, out } = capture(argv, cwd);
  return { code: await code, ...out };
}
