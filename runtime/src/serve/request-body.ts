import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../backends/http-body.js';
import { refuse } from './answers.js';
import { checkRequest } from './schemas.js';
import type { RequestKind } from './schemas.js';

const BODY_LIMIT = 256 * 1024;
/** How deep a body's arrays and objects may nest: far past any input a form or a client sends. */
export const DEPTH_LIMIT = 64;

/**
 * A request's JSON body, checked against its schema (`schemas.ts`); undefined when it was refused
 * (too large, not JSON, not of its schema), the refusal already sent. An empty body is `{}` for the
 * requests that need nothing.
 */
export async function requestBody(
  req: IncomingMessage,
  res: ServerResponse,
  kind: RequestKind,
): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  const read = await readBody(req, { maxBytes: BODY_LIMIT });
  if (!read.ok) {
    refuse(res, read.status, read.status === 413 ? 'too-large' : 'bad-body', read.reason);
    return undefined;
  }
  if (read.text.trim() === '' && (kind === 'empty' || kind === 'cancel')) return {};
  if (!/^application\/json\b/i.test(type)) {
    refuse(res, 415, 'not-json', 'send the body as application/json');
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch (error) {
    refuse(res, 400, 'bad-json', `the body is not JSON: ${(error as Error).message}`);
    return undefined;
  }
  // (deeper values overflow the stack of whatever walks them next: the schema check, the run file)
  if (depthOver(body, DEPTH_LIMIT)) {
    refuse(res, 400, 'too-deep', `the body nests arrays and objects more than ${DEPTH_LIMIT} deep`);
    return undefined;
  }
  const problem = checkRequest(kind, body);
  if (problem) {
    refuse(res, 400, 'bad-request', problem.message, problem.field);
    return undefined;
  }
  return body;
}

/** Whether a parsed JSON value nests deeper than `limit` (walked with a stack of its own, not recursion). */
export function depthOver(value: unknown, limit: number): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (stack.length) {
    const { value: next, depth } = stack.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(next)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
