import { StringDecoder } from 'node:string_decoder';

/** Lines longer than this are not read for counts (a summary line is short; a minified bundle is not). */
export const MAX_LINE_CHARS = 16 * 1024;

/**
 * Cuts a byte stream into lines for the count readers, as it arrives: UTF-8 characters split across
 * chunks are joined, and an overlong line is skipped rather than kept growing.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private skipping = false;

  constructor(private readonly onLine: (line: string) => void) {}

  write(chunk: Buffer): void {
    this.take(this.decoder.write(chunk));
  }

  /** the stream ended: its last line, if it had no newline */
  end(): void {
    this.take(this.decoder.end());
    if (!this.skipping && this.partial) this.onLine(this.partial);
    this.partial = '';
    this.skipping = false;
  }

  private take(text: string): void {
    let start = 0;
    for (let newline = text.indexOf('\n'); newline >= 0; newline = text.indexOf('\n', start)) {
      const line = this.partial + text.slice(start, newline);
      if (!this.skipping && line.length <= MAX_LINE_CHARS) this.onLine(line);
      this.partial = '';
      this.skipping = false;
      start = newline + 1;
    }
    if (this.skipping) return;
    this.partial += text.slice(start);
    if (this.partial.length > MAX_LINE_CHARS) {
      this.partial = '';
      this.skipping = true;
    }
  }
}
