/**
 * MCP over stdio (one JSON-RPC message per line), read so that no input jams the session. The SDK's
 * StdioServerTransport closed the whole session when its buffer passed 10 MiB (one long line did it, with
 * no answer: later calls timed out), and answered nothing to a line that was not JSON or not a JSON-RPC
 * message. Here a line over the limit is skipped as it streams in (never buffered) and answered with an
 * error, with its request id where its first or last bytes show it; a line that is not JSON or not a
 * message is answered too; and the next line is read as usual.
 *
 * Keys named `__proto__` anywhere in a message are refused here, before zod (which would drop them
 * without a word) and before any tool sees the arguments.
 */
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeForbidden, forbiddenKey } from '@kairoku-playbook/machine';
import { readRequestId } from '@kairoku-playbook/protocol';
import type { RequestId } from '@kairoku-playbook/protocol';

/** The longest message line the server reads (the MCP SDK's own stdio limit, now per message). */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024;
/** Bytes kept from each end of a skipped line, to read its id from. */
const PEEK_BYTES = 64 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

export interface GuardedStdioOptions {
  maxMessageBytes?: number;
  /** where refusals are noted (stderr); stdout carries the protocol */
  log?: (line: string) => void;
}

export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxMessageBytes: number;
  private line: Buffer[] = [];
  private lineBytes = 0;
  /** the line being skipped (over the limit): its size so far and its ends */
  private skipping: { bytes: number; head: Buffer; tail: Buffer } | undefined;
  private started = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly options: GuardedStdioOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MCP_MESSAGE_BYTES;
  }

  start(): Promise<void> {
    if (this.started) throw new Error('the stdio transport is already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message);
  }

  close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.line = [];
    this.lineBytes = 0;
    this.skipping = undefined;
    this.onclose?.();
    return Promise.resolve();
  }

  private readonly onError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(10, start);
      this.take(data.subarray(start, newline < 0 ? data.length : newline));
      if (newline < 0) break;
      try {
        this.endLine();
      } catch (error) {
        this.onerror?.(error as Error);
      }
      start = newline + 1;
    }
  };

  /** A piece of the current line: kept, or (past the limit) only its ends. */
  private take(piece: Buffer): void {
    if (!piece.length) return;
    if (!this.skipping && this.lineBytes + piece.length <= this.maxMessageBytes) {
      this.line.push(piece);
      this.lineBytes += piece.length;
      return;
    }
    if (!this.skipping) {
      const kept = Buffer.concat(this.line);
      this.skipping = {
        bytes: kept.length,
        head: Buffer.from(kept.subarray(0, PEEK_BYTES)),
        tail: Buffer.alloc(0),
      };
      this.skipping.tail = Buffer.from(kept.subarray(-PEEK_BYTES));
      this.line = [];
      this.lineBytes = 0;
    }
    const skipping = this.skipping;
    skipping.bytes += piece.length;
    if (skipping.head.length < PEEK_BYTES)
      skipping.head = Buffer.concat([skipping.head, piece.subarray(0, PEEK_BYTES - skipping.head.length)]);
    skipping.tail = Buffer.from(
      Buffer.concat([skipping.tail, piece.subarray(-PEEK_BYTES)]).subarray(-PEEK_BYTES),
    );
  }

  private endLine(): void {
    const skipped = this.skipping;
    if (skipped) {
      this.skipping = undefined;
      this.refuse(
        readRequestId(skipped.head.toString('utf8'), skipped.tail.toString('utf8')),
        INVALID_REQUEST,
        `the message is ${skipped.bytes} bytes, over this server's limit of ${this.maxMessageBytes} bytes; it was skipped (send less at once, e.g. shorter outputs)`,
      );
      return;
    }
    const text = Buffer.concat(this.line).toString('utf8').replace(/\r$/, '');
    this.line = [];
    this.lineBytes = 0;
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.refuse(
        readRequestId(text, text),
        PARSE_ERROR,
        `the message is not JSON: ${(error as Error).message}`,
      );
      return;
    }
    const fields =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : {};
    const id =
      typeof fields.id === 'string' || (typeof fields.id === 'number' && Number.isSafeInteger(fields.id))
        ? fields.id
        : undefined;
    const isRequest = typeof fields.method === 'string' && id !== undefined;
    const forbidden = forbiddenKey(value);
    if (forbidden) {
      const message = `the message was refused: ${describeForbidden(forbidden)}`;
      // A notification or a response has no one to answer: it is only noted.
      if (isRequest || typeof fields.method !== 'string')
        this.refuse(isRequest ? id : undefined, INVALID_PARAMS, message);
      else this.options.log?.(message);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const what = Array.isArray(value)
        ? 'batches are not supported: send one JSON-RPC message per line'
        : 'it is not a JSON-RPC 2.0 request, notification or response ({"jsonrpc":"2.0","id":…,"method":…})';
      this.refuse(id, INVALID_REQUEST, `the message was refused: ${what}`);
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** Answers what cannot be passed on; an id that cannot be read is left out (MCP's error response). */
  private refuse(id: RequestId | undefined, code: number, message: string): void {
    this.options.log?.(`refused a message: ${message}`);
    // The reader does not wait for the answer; a failed write goes to onerror.
    void this.write({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } }).catch(
      (error: Error) => this.onerror?.(error),
    );
  }

  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }
}
