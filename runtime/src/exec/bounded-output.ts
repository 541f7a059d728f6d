import { maskCutEdge, maskText } from './mask.js';

/**
 * A command's output kept within a limit: the first half of the limit and the last half, with the
 * bytes in between counted, not kept. Memory stays bounded whatever the command prints.
 */
export class BoundedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(limit: number) {
    this.headLimit = Math.floor(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  write(data: Buffer | string): void {
    let chunk = typeof data === 'string' ? Buffer.from(data) : data;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(chunk.length, this.headLimit - this.headBytes);
      this.head.push(chunk.subarray(0, take));
      this.headBytes += take;
      chunk = chunk.subarray(take);
    }
    if (!chunk.length) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    if (this.tailBytes <= this.tailLimit) return;
    let excess = this.tailBytes - this.tailLimit;
    let drop = 0;
    while (excess > 0 && this.tail[drop]!.length <= excess) excess -= this.tail[drop++]!.length;
    if (drop) this.tail = this.tail.slice(drop);
    if (excess > 0) this.tail[0] = this.tail[0]!.subarray(excess);
    this.dropped += this.tailBytes - this.tailLimit;
    this.tailBytes = this.tailLimit;
  }

  /**
   * The kept output as text, secrets masked. When bytes were dropped, the head and the tail are cut at
   * line ends where one is near, and a line between them says how many bytes were left out.
   */
  text(secrets: readonly string[]): string {
    let head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (!this.dropped) return maskText(Buffer.concat([head, tail]).toString('utf8'), secrets);
    let dropped = this.dropped;
    const headEnd = head.lastIndexOf(0x0a);
    if (headEnd >= head.length / 2) {
      dropped += head.length - headEnd - 1;
      head = head.subarray(0, headEnd + 1);
    }
    const tailStart = tail.indexOf(0x0a);
    if (tailStart >= 0 && tailStart < tail.length / 2) {
      dropped += tailStart + 1;
      tail = tail.subarray(tailStart + 1);
    }
    const shownHead = maskCutEdge(maskText(head.toString('utf8'), secrets), secrets, 'end');
    const shownTail = maskCutEdge(maskText(tail.toString('utf8'), secrets), secrets, 'start');
    const separator = shownHead.endsWith('\n') ? '' : '\n';
    return `${shownHead}${separator}[... ${dropped} bytes of output dropped ...]\n${shownTail}`;
  }
}
