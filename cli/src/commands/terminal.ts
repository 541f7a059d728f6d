import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * The person at the terminal during `run`: progress is written at once (not buffered to the end,
 * as other output is) and gates are asked synchronously, so the transition loop stays synchronous.
 */
export interface Terminal {
  write(text: string): void;
  /** one line typed after `question`, without its line break; undefined at end of input */
  ask(question: string): string | undefined;
  /**
   * the same without blocking the event loop (a live run's agents report while a person reads the
   * gate); undefined at end of input or when `signal` aborts (the gate closed meanwhile)
   */
  askAsync?(question: string, signal: AbortSignal): Promise<string | undefined>;
}

/** The process's terminal, when both standard input and output are one; otherwise undefined. */
export function processTerminal(): Terminal | undefined {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return undefined;
  return {
    write: (text) => void writeSync(1, text),
    ask(question) {
      writeSync(1, question);
      return readLine();
    },
    askAsync(question, signal) {
      writeSync(1, question);
      return readLineAsync(signal);
    },
  };
}

/** One line from standard input, read without blocking; undefined at its end or when `signal` aborts. */
function readLineAsync(signal: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    const input = process.stdin;
    let text = '';
    const finish = (line: string | undefined) => {
      input.off('data', onData);
      input.off('end', onEnd);
      signal.removeEventListener('abort', onAbort);
      input.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const newline = text.indexOf('\n');
      if (newline < 0) return;
      // What was typed after the line break is not wanted: a gate asks one line at a time.
      finish(text.slice(0, newline).replace(/\r$/, ''));
    };
    const onEnd = () => finish(text ? text : undefined);
    const onAbort = () => finish(undefined);
    input.on('data', onData);
    input.once('end', onEnd);
    signal.addEventListener('abort', onAbort, { once: true });
    input.resume();
  });
}

function readLine(): string | undefined {
  let fd = 0;
  let opened = false;
  try {
    fd = openSync('/dev/tty', 'r');
    opened = true;
  } catch {
    // no /dev/tty (Windows): standard input is the terminal
  }
  const bytes: number[] = [];
  const buffer = Buffer.alloc(1);
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, 1, null);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        throw error;
      }
      if (n === 0) return bytes.length ? Buffer.from(bytes).toString('utf8') : undefined;
      if (buffer[0] === 0x0a) break;
      bytes.push(buffer[0]!);
    }
  } finally {
    if (opened) closeSync(fd);
  }
  return Buffer.from(bytes).toString('utf8').replace(/\r$/, '');
}
