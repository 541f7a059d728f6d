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
  /**
   * one line typed after `question` without echoing it (a secret input); undefined at end of input
   * or Ctrl-C
   */
  askSecret?(question: string): Promise<string | undefined>;
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
    askSecret(question) {
      writeSync(1, question);
      return readSecret();
    },
  };
}

/**
 * One line from the terminal in raw mode, so nothing typed is echoed (nor left in the scrollback):
 * Enter ends it, backspace and Ctrl-U edit it, Ctrl-C and Ctrl-D on an empty line give up.
 */
function readSecret(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const input = process.stdin;
    const wasRaw = input.isRaw;
    let text = '';
    const finish = (line: string | undefined) => {
      input.off('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      writeSync(1, '\n');
      resolve(line);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish(text);
        if (char === '\u0003' || (char === '\u0004' && !text)) return finish(undefined);
        if (char === '\u007f' || char === '\b') text = [...text].slice(0, -1).join('');
        else if (char === '\u0015') text = '';
        else if (char >= ' ') text += char;
      }
    };
    input.setRawMode(true);
    input.on('data', onData);
    input.resume();
  });
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
