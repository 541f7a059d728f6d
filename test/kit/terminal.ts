/**
 * Real interactive tools (shells, editors) driven by a test: whether one is installed, and a program
 * in a pseudo-terminal typed at step by step.
 */
import { spawn, spawnSync } from 'node:child_process';

/**
 * Whether a tool (zsh, fish, nvim, emacs) is here. CI installs them (.ci/run) and sets
 * REQUIRE_AUTHORING_TOOLS=1, so there a missing one fails the test instead of skipping it.
 */
export function hasTool(command: string): boolean {
  const found = spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
  if (!found && process.env.REQUIRE_AUTHORING_TOOLS === '1')
    throw new Error(
      `${command} is not installed, and REQUIRE_AUTHORING_TOOLS=1 requires it (.ci/run installs it)`,
    );
  return found;
}

/** Terminal output without its escape sequences, carriage returns and bells. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;?]*[a-zA-Z]|\x1b[>=]|[\r\x07\b]/g, '');
}

/**
 * An interactive program in a pseudo-terminal (util-linux `script`), typed at step by step: each
 * `type` waits until the screen shows what the caller expects before the next keys go in, because
 * an interactive shell drops keys typed before its line editor is ready.
 */
export function terminal(command: string, env: NodeJS.ProcessEnv, cwd: string) {
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...env, TERM: 'xterm' },
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    /** everything shown since the last `mark` */
    get screen() {
      return plain(screen);
    },
    mark() {
      screen = '';
    },
    async waitFor(until: (screen: string) => boolean, what: string): Promise<string> {
      const deadline = Date.now() + 30_000;
      while (!until(plain(screen))) {
        if (Date.now() > deadline)
          throw new Error(`the terminal never showed ${what}; it shows:\n${plain(screen)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return plain(screen);
    },
    async type(keys: string, until: (screen: string) => boolean, what: string): Promise<string> {
      screen = '';
      child.stdin.write(keys);
      const deadline = Date.now() + 30_000;
      while (!until(plain(screen))) {
        if (Date.now() > deadline)
          throw new Error(`the terminal never showed ${what}; it shows:\n${plain(screen)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return plain(screen);
    },
    async close() {
      child.stdin.end('exit\n');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
