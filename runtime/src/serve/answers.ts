import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { HostRefusal } from '../host/run-host.js';
import type { Refusal } from '@kairoku-playbook/protocol';

// How serve answers: JSON with no caching, and refusals with a stable code (docs/serve.md's Refusals).

export function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function refuse(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  field?: string,
): void {
  const refusal: Refusal = { code, message, ...(field !== undefined ? { field } : {}) };
  send(res, status, { refusal });
}

export function refuseWith(res: ServerResponse, refusal: HostRefusal): void {
  const status = refusal.kind === 'not-found' ? 404 : refusal.kind === 'invalid' ? 422 : 409;
  refuse(res, status, refusal.code, refusal.message, refusal.field);
}

/**
 * What Node's HTTP parser refuses before a request reaches serve (a malformed request line, headers
 * too large, a request too slow), answered as every other refusal is: JSON with a stable code and
 * serve's security headers, instead of Node's bare answer (issue 27 item 8).
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  headers: Readonly<Record<string, string>>,
): void {
  const [status, code, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers-too-large', 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request-timeout', 'the request did not arrive in time']
        : [400, 'bad-request', 'the request is not HTTP serve can read'];
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ refusal: { code, message } });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}`,
    'Content-Type: application/json; charset=utf-8',
    'Cache-Control: no-store',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};
