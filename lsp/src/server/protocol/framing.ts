/**
 * The base protocol's framing (`Content-Length: N\r\n\r\n` then N bytes), read so that no input can wedge
 * the stream: a body over the limit is skipped as it streams in (never buffered), bytes that are not a
 * header are dropped up to the next header, and a Content-Length that claims more than was sent is caught
 * at the next header rather than swallowing the messages after it.
 *
 * That last check rests on a property of JSON: `Content-Length: 12` followed by a raw CR LF can never be
 * inside a JSON text (outside a string it is not JSON; inside one, a raw CR is not allowed), so where it
 * appears within a declared body, the body has ended and a new message has begun.
 */

/** The largest message the language server reads (a playbook is at most 8 Mi characters; JSON escapes). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** A header block longer than this is not one. */
const MAX_HEADER_BYTES = 8 * 1024;
/** Bytes kept from each end of a refused body, to read its id from. */
const PEEK_BYTES = 64 * 1024;
/** Enough for any header line `findHeader` matches; kept between chunks so a header split across them is found. */
const CARRY_BYTES = 64;
const HEADER_LINE = /^[A-Za-z][A-Za-z0-9-]*:[^\r\n]*$/;
const HEADER_IN_BODY = /^Content-Length:[ \t]{0,8}\d{1,15}[ \t]{0,8}\r\n/;

/** JSON-RPC's codes for a message that is not JSON, and one that is not a valid request. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export type Frame =
  | { kind: 'body'; bytes: Buffer }
  /** something to refuse: `head` and `tail` are its first and last bytes (to read an id from), if any */
  | { kind: 'refused'; code: number; message: string; head: string; tail: string };

interface Body {
  /** the declared Content-Length */
  length: number;
  /** over the limit: only the ends are kept */
  skipping: boolean;
  chunks: Buffer[];
  received: number;
  head: Buffer;
  tail: Buffer[];
  tailBytes: number;
  /** the last bytes of the body so far, where a header split across chunks may have begun */
  carry: Buffer;
}

export class MessageFraming {
  private header: Buffer = Buffer.alloc(0);
  private body: Body | undefined;
  /** a run of bytes that are not a header was already refused (one refusal per run) */
  private inGarbage = false;

  constructor(readonly maxMessageBytes = MAX_MESSAGE_BYTES) {}

  /** Feeds a chunk of the stream; returns the frames it completes, in order. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let data: Buffer | undefined = chunk;
    while (data && data.length)
      data = this.body ? this.readBody(data, frames) : this.readHeader(data, frames);
    return frames;
  }

  private readHeader(data: Buffer, frames: Frame[]): Buffer | undefined {
    const text = this.header.length ? Buffer.concat([this.header, data]) : data;
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) {
      if (text.length > MAX_HEADER_BYTES) {
        this.garbage(frames, 'bytes that are not a message header (Content-Length: N, then a blank line)');
        // Keep the end: a header may begin there.
        this.header = Buffer.from(text.subarray(text.length - CARRY_BYTES));
      } else this.header = Buffer.from(text);
      return undefined;
    }
    this.header = Buffer.alloc(0);
    const rest = text.subarray(end + 4);
    const block = text.toString('latin1', 0, end);
    const at = block.toLowerCase().lastIndexOf('content-length:');
    if (at < 0) {
      if (block.trim()) this.garbage(frames, 'a message header without Content-Length');
      return rest;
    }
    const start = headerStart(block, at);
    if (block.slice(0, start).trim()) this.garbage(frames, 'bytes that are not a message header');
    this.inGarbage = false;
    let length: number | undefined;
    for (const line of block.slice(start).split('\r\n')) {
      const colon = line.indexOf(':');
      if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
      const value = line.slice(colon + 1).trim();
      length = /^\d{1,15}$/.test(value) ? Number(value) : undefined;
      if (length === undefined) {
        frames.push(
          refusal(PARSE_ERROR, `the Content-Length "${value.slice(0, 40)}" is not a number of bytes`),
        );
        return rest;
      }
    }
    this.body = {
      length: length!,
      skipping: length! > this.maxMessageBytes,
      chunks: [],
      received: 0,
      head: Buffer.alloc(0),
      tail: [],
      tailBytes: 0,
      carry: Buffer.alloc(0),
    };
    return rest;
  }

  private readBody(data: Buffer, frames: Frame[]): Buffer | undefined {
    const body = this.body!;
    const wanted = body.length - body.received;
    // A header inside the declared body: the Content-Length lied, the body ends where the header begins.
    const scan = data.subarray(0, Math.min(data.length, wanted + CARRY_BYTES));
    const found = findHeader(body.carry, scan);
    const windowStart = body.received - body.carry.length;
    const lieAt = found !== undefined && windowStart + found < body.length ? windowStart + found : undefined;
    const take = lieAt === undefined ? Math.min(data.length, wanted) : Math.max(0, lieAt - body.received);
    this.keep(body, data.subarray(0, take));
    if (lieAt === undefined && body.received < body.length) {
      body.carry = Buffer.from(
        scan.length >= CARRY_BYTES
          ? scan.subarray(-CARRY_BYTES)
          : Buffer.concat([body.carry, scan]).subarray(-CARRY_BYTES),
      );
      return undefined;
    }
    this.body = undefined;
    // The header may have begun in bytes already taken (the carry): give them back.
    const rest =
      lieAt !== undefined && lieAt < body.received - take
        ? Buffer.concat([body.carry.subarray(found), data])
        : data.subarray(take);
    const end = lieAt ?? body.length;
    if (body.skipping) {
      frames.push(
        refusal(
          INVALID_REQUEST,
          `the message is ${body.length} bytes, over this server's limit of ${this.maxMessageBytes} bytes; it was skipped`,
          body.head,
          Buffer.concat(body.tail),
        ),
      );
      return rest;
    }
    const bytes = Buffer.concat(body.chunks).subarray(0, end);
    if (lieAt !== undefined)
      frames.push(
        refusal(
          PARSE_ERROR,
          `the Content-Length said ${body.length} bytes, but the next message began after ${end}`,
          bytes.subarray(0, PEEK_BYTES),
          bytes.subarray(-PEEK_BYTES),
        ),
      );
    else frames.push({ kind: 'body', bytes });
    return rest;
  }

  /** Keeps a piece of a body: all of it, or only its ends when it is being skipped. */
  private keep(body: Body, piece: Buffer): void {
    body.received += piece.length;
    if (!body.skipping) {
      body.chunks.push(piece);
      return;
    }
    if (body.head.length < PEEK_BYTES)
      body.head = Buffer.concat([body.head, piece.subarray(0, PEEK_BYTES - body.head.length)]);
    // The last pieces that hold the last PEEK_BYTES (joined only at the end).
    body.tail.push(piece);
    body.tailBytes += piece.length;
    while (body.tail.length > 1 && body.tailBytes - body.tail[0]!.length >= PEEK_BYTES)
      body.tailBytes -= body.tail.shift()!.length;
  }

  private garbage(frames: Frame[], message: string): void {
    if (!this.inGarbage) frames.push(refusal(PARSE_ERROR, `${message}; skipped to the next header`));
    this.inGarbage = true;
  }
}

function refusal(code: number, message: string, head?: Buffer, tail?: Buffer): Frame {
  return {
    kind: 'refused',
    code,
    message,
    head: head?.toString('utf8') ?? '',
    tail: tail?.toString('utf8') ?? '',
  };
}

/**
 * Where the header block that holds the Content-Length at `at` begins: at that line, or earlier when the
 * lines before it are headers too (`Content-Type: …`); whatever comes before is not part of it.
 */
function headerStart(block: string, at: number): number {
  let start = lineStart(block, at);
  // Bytes before the header on its own line (the end of a body whose Content-Length was too small).
  if (start !== at) return at;
  while (start > 0) {
    const previous = lineStart(block, start - 2);
    if (!HEADER_LINE.test(block.slice(previous, start - 2))) break;
    start = previous;
  }
  return start;
}

/** The start of the line that holds index `i` (lines end with CR LF). */
function lineStart(block: string, i: number): number {
  const newline = i >= 2 ? block.lastIndexOf('\r\n', i - 2) : -1;
  return newline < 0 ? 0 : newline + 2;
}

/**
 * Where a `Content-Length: N` header line begins in `carry` followed by `scan` (an index into the two as
 * one), or undefined: a native search of the new bytes, and a small one across the seam.
 */
function findHeader(carry: Buffer, scan: Buffer): number | undefined {
  const isHeader = (bytes: Buffer, at: number) =>
    HEADER_IN_BODY.test(bytes.toString('latin1', at, at + CARRY_BYTES));
  if (carry.length) {
    const seam = Buffer.concat([carry, scan.subarray(0, CARRY_BYTES)]);
    for (
      let at = seam.indexOf('Content-Length:');
      at >= 0 && at < carry.length;
      at = seam.indexOf('Content-Length:', at + 1)
    )
      if (isHeader(seam, at)) return at;
  }
  for (let at = scan.indexOf('Content-Length:'); at >= 0; at = scan.indexOf('Content-Length:', at + 1))
    if (isHeader(scan, at)) return carry.length + at;
  return undefined;
}
