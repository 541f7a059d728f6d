/**
 * The extension host's client of a `serve` (docs/serve.md): API requests with the bearer token, and the
 * event stream (server-sent events) read over plain HTTP, reconnecting with `Last-Event-ID` so no event
 * is missed. The token stays in this process's memory; the Playbooks view's page only ever sees answers
 * and events. No `vscode` here.
 */
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';

export interface ServeAddress {
  /** http://127.0.0.1:PORT */
  url: string;
  token: string;
}

export interface ServeAnswer {
  status: number;
  text: string;
}

export interface ServeEvent {
  id?: string;
  event: string;
  data: string;
}

/** An answer's body is at most this many bytes (serve's answers are far smaller; a runaway is cut). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** A request under `/api/v1`; rejects when serve cannot be reached (no status). */
export function serveRequest(
  address: ServeAddress,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<ServeAnswer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${address.url}/api/v1${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${address.token}`,
          accept: 'application/json',
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('the answer is too large'));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`serve did not answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Reads server-sent events from text as it arrives: `push` takes a chunk and returns the events it
 * completed (a blank line ends one); comments (`: alive`) and `retry:` are skipped.
 */
export class SseParser {
  private buffer = '';
  /** the id of the last event seen, for `Last-Event-ID` */
  lastId: string | undefined;

  push(chunk: string): ServeEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const events: ServeEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id') id = value;
      }
      if (id !== undefined) this.lastId = id;
      if (data.length === 0) continue;
      events.push({ event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
    }
    return events;
  }
}

export interface EventStreamHandlers {
  onEvent(event: ServeEvent): void;
  /** the stream is up (true), or down (false, with why) and being retried */
  onConnection(live: boolean, why?: string): void;
}

/**
 * Follows `/api/v1/events` until closed: reconnects after `retryMs` when the stream ends or fails, sending
 * the last event's id, so serve replays what was missed (or says `reset`).
 */
export class EventStream {
  private readonly parser = new SseParser();
  private req: ClientRequest | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly address: ServeAddress,
    private readonly handlers: EventStreamHandlers,
    private readonly retryMs = 1000,
  ) {
    this.connect();
  }

  private connect(): void {
    if (this.closed) return;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.address.token}`,
      accept: 'text/event-stream',
    };
    if (this.parser.lastId !== undefined) headers['last-event-id'] = this.parser.lastId;
    const req = httpRequest(`${this.address.url}/api/v1/events`, { headers });
    this.req = req;
    let down = false;
    const lost = (why: string) => {
      if (down || this.closed) return;
      down = true;
      this.handlers.onConnection(false, why);
      this.timer = setTimeout(() => this.connect(), this.retryMs);
    };
    req.on('response', (res: IncomingMessage) => {
      if (res.statusCode !== 200) {
        res.resume();
        lost(`serve answered ${res.statusCode} to the event stream`);
        return;
      }
      res.setEncoding('utf8');
      this.handlers.onConnection(true);
      res.on('data', (chunk: string) => {
        for (const event of this.parser.push(chunk)) this.handlers.onEvent(event);
      });
      res.on('end', () => lost('the event stream ended'));
      res.on('error', (error) => lost(error.message));
    });
    req.on('error', (error) => lost(error.message));
    req.end();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.req?.destroy();
  }
}
