import type { IncomingMessage, ServerOptions } from 'node:http';

/**
 * Request bodies for the runtime's HTTP listeners (the report endpoint, the Kairoku app server, the
 * runner's capacity listener), read within limits so that no client can hold a listener: a body over the
 * limit is refused as soon as that is known (413: from its Content-Length, or the moment it grows past),
 * one that does not arrive in time is refused (408), and a body cut off by its client is a 400.
 *
 * After a refusal, the rest of a body is read and dropped so the client can read the answer (closing a
 * socket with unread bytes resets it, and the answer can be lost); past another `maxBytes`, or once the
 * time is up, the socket is closed all the same.
 */

export const BODY_TIMEOUT_MS = 30_000;

/** Server-wide guards: slow headers are answered 408 by Node after 10 s, checked every second. */
export const LISTENER_OPTIONS: ServerOptions = {
  headersTimeout: 10_000,
  requestTimeout: 120_000,
  connectionsCheckingInterval: 1_000,
};

export interface BodyLimits {
  maxBytes: number;
  /** the whole body must arrive within this (default BODY_TIMEOUT_MS) */
  timeoutMs?: number;
}

export type BodyResult = { ok: true; text: string } | { ok: false; status: 400 | 408 | 413; reason: string };

export function readBody(req: IncomingMessage, limits: BodyLimits): Promise<BodyResult> {
  const { maxBytes } = limits;
  const timeoutMs = limits.timeoutMs ?? BODY_TIMEOUT_MS;
  const tooLarge = (size: string): BodyResult => ({
    ok: false,
    status: 413,
    reason: maxBytes
      ? `the body is ${size}, over the limit of ${maxBytes} bytes`
      : `this request takes no body (it has ${size})`,
  });
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > maxBytes) {
    drainAfterRefusal(req, maxBytes, timeoutMs);
    return Promise.resolve(tooLarge(`${declared} bytes`));
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      if (!result.ok) drainAfterRefusal(req, maxBytes, timeoutMs);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) settle(tooLarge(`more than ${maxBytes} bytes`));
      else chunks.push(chunk);
    };
    const onEnd = () => settle({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onAborted = () => settle({ ok: false, status: 400, reason: 'the body was cut off by the client' });
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          status: 408,
          reason: `the body did not arrive within ${timeoutMs} ms (${size} bytes came); send it at once`,
        }),
      timeoutMs,
    );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', () => settle({ ok: false, status: 400, reason: 'the body could not be read' }));
  });
}

/**
 * Reads and drops the body of a request answered without it (a refusal, a wrong route), up to
 * `maxBytes` (at least 64 KiB) and `timeoutMs`; past either, the socket is closed.
 */
export function discardBody(req: IncomingMessage, limits: BodyLimits): void {
  drainAfterRefusal(req, limits.maxBytes, limits.timeoutMs ?? BODY_TIMEOUT_MS);
}

function drainAfterRefusal(req: IncomingMessage, maxBytes: number, timeoutMs: number): void {
  let dropped = 0;
  const close = () => req.socket.destroy();
  const timer = setTimeout(close, timeoutMs);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > Math.max(maxBytes, 64 * 1024)) close();
  });
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.resume();
}
