/**
 * The server's message reader: vscode-jsonrpc's stream reader answers nothing when a message is bad (it
 * reports an error event and its framing may stay misaligned for good), so this one frames the stream
 * itself (`framing.ts`) and answers every message it cannot pass on with a JSON-RPC error, with the
 * request's id where it can be read: not JSON (ParseError), not a JSON-RPC message (InvalidRequest), too
 * large (InvalidRequest), or params that do not fit the method (InvalidParams; for a notification, which
 * has no answer, a log line). Only well-formed messages reach the connection.
 */
import { AbstractMessageReader } from 'vscode-languageserver/node';
import type { DataCallback, Disposable, Message, ResponseMessage } from 'vscode-languageserver/node';
import { INVALID_REQUEST, MessageFraming, PARSE_ERROR } from './framing.js';
import { readRequestId } from '@kairoku-playbook/protocol';
import type { RequestId } from '@kairoku-playbook/protocol';

export const INVALID_PARAMS = -32602;

export interface GuardOptions {
  /** writes an answer to the client */
  answer(message: ResponseMessage): void;
  /** why a request's or notification's params do not fit its method, or undefined */
  checkParams(method: string, params: unknown): string | undefined;
  log(line: string): void;
  maxMessageBytes?: number;
}

export class GuardedMessageReader extends AbstractMessageReader {
  private readonly framing: MessageFraming;

  constructor(
    private readonly readable: NodeJS.ReadableStream,
    private readonly options: GuardOptions,
  ) {
    super();
    this.framing = new MessageFraming(options.maxMessageBytes);
  }

  listen(callback: DataCallback): Disposable {
    const onData = (chunk: Buffer | string) => {
      const frames = this.framing.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      for (const frame of frames) {
        if (frame.kind === 'refused')
          this.refuse(readRequestId(frame.head, frame.tail), frame.code, frame.message);
        else this.deliver(frame.bytes.toString('utf8'), callback);
      }
    };
    const onError = (error: Error) => this.fireError(error);
    const onClose = () => this.fireClose();
    this.readable.on('data', onData);
    this.readable.on('error', onError);
    this.readable.on('close', onClose);
    this.readable.on('end', onClose);
    return {
      dispose: () => {
        this.readable.off('data', onData);
        this.readable.off('error', onError);
        this.readable.off('close', onClose);
        this.readable.off('end', onClose);
      },
    };
  }

  private deliver(text: string, callback: DataCallback): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch (error) {
      return this.refuse(
        readRequestId(text, text),
        PARSE_ERROR,
        `the message is not JSON: ${(error as Error).message}`,
      );
    }
    const problem = this.problemOf(message);
    if (problem === 'drop') return;
    if (problem) return this.refuse(problem.id, problem.code, problem.message);
    try {
      callback(message as Message);
    } catch (error) {
      this.options.log(`a message could not be handled: ${(error as Error).stack ?? String(error)}`);
    }
  }

  /** What is wrong with a parsed message: an answer to send, `drop` (logged), or undefined when it can go on. */
  private problemOf(
    message: unknown,
  ): { id: RequestId | null; code: number; message: string } | 'drop' | undefined {
    if (typeof message !== 'object' || message === null || Array.isArray(message))
      return {
        id: null,
        code: INVALID_REQUEST,
        message: Array.isArray(message)
          ? 'batches are not supported: send one JSON-RPC message at a time'
          : 'a message is a JSON-RPC object with a method (a request or a notification) or an id (a response)',
      };
    const fields = message as Record<string, unknown>;
    const id = fields.id;
    const validId = isRequestId(id);
    if (!('method' in fields)) {
      // A response to one of the server's requests: anything without a valid id has no one to go to.
      if (validId && ('result' in fields || 'error' in fields)) return undefined;
      this.options.log('dropped a message that is neither a request, a notification nor a response');
      return 'drop';
    }
    if (typeof fields.method !== 'string')
      return { id: validId ? id : null, code: INVALID_REQUEST, message: 'the method must be a string' };
    if (id !== undefined && !validId)
      return {
        id: null,
        code: INVALID_REQUEST,
        message: `the id of a ${fields.method} request must be an integer or a string`,
      };
    const params = fields.params;
    const problem =
      params !== undefined && params !== null && typeof params !== 'object'
        ? 'params must be an object or an array'
        : this.options.checkParams(fields.method, params);
    if (problem === undefined) return undefined;
    if (validId)
      return { id, code: INVALID_PARAMS, message: `invalid params for ${fields.method}: ${problem}` };
    this.options.log(`ignored a ${fields.method} notification: ${problem}`);
    return 'drop';
  }

  private refuse(id: RequestId | null | undefined, code: number, message: string): void {
    this.options.log(`refused a message: ${message}`);
    this.options.answer({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
  }
}

function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}
