import type { ServerResponse } from 'node:http';
import type { HostRefusal } from '../host/run-host.js';
import type { Refusal } from './api-types.js';

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
