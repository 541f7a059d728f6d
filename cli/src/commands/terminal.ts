import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * The person at the terminal during `run`: progress is written at once (not buffered to the end,
 * as other output is) and gates are asked synchronously, so the transition loop stays synchronous.
 */
export interface Terminal {
  write(text: string): void;
  /** one line typed after `question`, without its line break; undefined at end of input */
  ask(question: string): string | undefined;
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
  };
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
