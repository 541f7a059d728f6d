import type { IncomingMessage, ServerResponse } from 'node:http';

interface StreamEvent {
  id: number;
  event: 'run' | 'runs-removed' | 'playbooks';
  data: string;
}

/**
 * serve's event stream (`GET /api/v1/events`, server-sent events): what happened, told to every open
 * stream, and the last `keep` events kept so that a client that reconnects with `Last-Event-ID` gets
 * what it missed (or `reset` when that is no longer kept).
 */
export class ServeEvents {
  private readonly events: StreamEvent[] = [];
  private lastId = Date.now();
  private readonly streams = new Set<ServerResponse>();

  constructor(
    private readonly keep: number,
    private readonly heartbeatMs: number,
  ) {}

  publish(event: StreamEvent['event'], data: unknown): void {
    const entry: StreamEvent = { id: ++this.lastId, event, data: JSON.stringify(data) };
    this.events.push(entry);
    if (this.events.length > this.keep) this.events.splice(0, this.events.length - this.keep);
    for (const stream of this.streams) stream.write(frame(entry));
  }

  open(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    const last = Number(req.headers['last-event-id'] ?? NaN);
    if (Number.isFinite(last)) {
      const oldest = this.events[0]?.id ?? this.lastId + 1;
      if (last < oldest - 1) res.write(`id: ${this.lastId}\nevent: reset\ndata: {}\n\n`);
      else for (const entry of this.events) if (entry.id > last) res.write(frame(entry));
    }
    this.streams.add(res);
    const heartbeat = setInterval(() => res.write(': alive\n\n'), this.heartbeatMs);
    heartbeat.unref();
    // The response's close, not the request's: a request closes once its (empty) body is read.
    res.on('close', () => {
      clearInterval(heartbeat);
      this.streams.delete(res);
    });
  }

  close(): void {
    for (const stream of this.streams) stream.end();
    this.streams.clear();
  }
}

function frame(entry: StreamEvent): string {
  return `id: ${entry.id}\nevent: ${entry.event}\ndata: ${entry.data}\n\n`;
}
