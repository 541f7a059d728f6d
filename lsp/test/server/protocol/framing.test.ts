import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message, ResponseMessage } from 'vscode-languageserver/node';
import { INVALID_REQUEST, MessageFraming, PARSE_ERROR } from '../../../src/server/protocol/framing.js';
import type { Frame } from '../../../src/server/protocol/framing.js';
import { GuardedMessageReader } from '../../../src/server/protocol/message-reader.js';
import { checkParams } from '../../../src/server/protocol/params.js';
import { readRequestId } from '@kairoku-playbook/protocol';

function frame(body: string, headers = ''): Buffer {
  const bytes = Buffer.from(body);
  return Buffer.concat([Buffer.from(`${headers}Content-Length: ${bytes.length}\r\n\r\n`), bytes]);
}

const hover = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'textDocument/hover',
    params: { textDocument: { uri: 'file:///a.yml' }, position: { line: 0, character: 0 } },
  });

/** What the framing makes of a stream fed in the given pieces: bodies as text, refusals as code and id. */
function read(pieces: Buffer[], limit?: number): (string | { code: number; id: unknown; message: string })[] {
  const framing = new MessageFraming(limit);
  const out: (string | { code: number; id: unknown; message: string })[] = [];
  const take = (frames: Frame[]) => {
    for (const f of frames)
      out.push(
        f.kind === 'body'
          ? f.bytes.toString('utf8')
          : { code: f.code, id: readRequestId(f.head, f.tail), message: f.message },
      );
  };
  for (const piece of pieces) take(framing.push(piece));
  return out;
}

function bytewise(buffer: Buffer): Buffer[] {
  return [...buffer].map((b) => Buffer.from([b]));
}

describe('the framing of the base protocol', () => {
  it('reads messages whole, in one chunk, byte by byte, and with a Content-Type header first', () => {
    const stream = Buffer.concat([
      frame(hover(1)),
      frame(hover(2), 'Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n'),
      frame('{"jsonrpc":"2.0","method":"exit","params":{"é":"ü"}}'),
    ]);
    const expected = [hover(1), hover(2), '{"jsonrpc":"2.0","method":"exit","params":{"é":"ü"}}'];
    expect(read([stream])).toEqual(expected);
    expect(read(bytewise(stream))).toEqual(expected);
  });

  it('gives the same messages however the stream is cut', () => {
    const bodies = [hover(1), '{"jsonrpc":"2.0","method":"initialized","params":{}}', hover(3), '{}'];
    const stream = Buffer.concat(bodies.map((b) => frame(b)));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 12 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), stream.length];
          const pieces = points.slice(1).map((end, i) => stream.subarray(points[i], end));
          expect(read(pieces)).toEqual(bodies);
        },
      ),
    );
  });

  it('refuses bytes that are not a header once, then reads the next message', () => {
    const junk = Buffer.from('this is not a header\r\n\r\n');
    expect(read([junk, frame(hover(4))])).toEqual([
      { code: PARSE_ERROR, id: undefined, message: expect.stringContaining('without Content-Length') },
      hover(4),
    ]);
    // A flood with no blank line in it: one refusal, and the header after it still counts.
    const flood = Buffer.alloc(200_000, 'x');
    expect(read([flood, flood, frame(hover(5))])).toEqual([
      { code: PARSE_ERROR, id: undefined, message: expect.stringContaining('not a message header') },
      hover(5),
    ]);
    // Junk stuck to the front of a header.
    expect(read([Buffer.concat([Buffer.from('}}garbage'), frame(hover(6))])])).toEqual([
      { code: PARSE_ERROR, id: undefined, message: expect.stringContaining('not a message header') },
      hover(6),
    ]);
  });

  it('refuses a Content-Length that is not a number', () => {
    const bad = Buffer.from('Content-Length: -5\r\n\r\n');
    const huge = Buffer.from('Content-Length: 99999999999999999999\r\n\r\n');
    expect(read([bad, huge, frame(hover(7))])).toEqual([
      { code: PARSE_ERROR, id: undefined, message: 'the Content-Length "-5" is not a number of bytes' },
      {
        code: PARSE_ERROR,
        id: undefined,
        message: 'the Content-Length "99999999999999999999" is not a number of bytes',
      },
      hover(7),
    ]);
  });

  it('catches a Content-Length that claims more than was sent at the next header, even one split across chunks', () => {
    const body = hover(8);
    const lie = Buffer.concat([Buffer.from(`Content-Length: ${body.length + 500}\r\n\r\n${body}`)]);
    const next = frame(hover(9));
    const expected = [
      { code: PARSE_ERROR, id: 8, message: expect.stringContaining(`said ${body.length + 500} bytes`) },
      hover(9),
    ];
    expect(read([lie, next])).toEqual(expected);
    expect(read(bytewise(Buffer.concat([lie, next])))).toEqual(expected);
  });

  it('reads past a Content-Length that claims less than was sent, refusing the rest', () => {
    const body = hover(10);
    const short = Buffer.from(`Content-Length: 20\r\n\r\n${body}`);
    const frames = read([short, frame(hover(11))]);
    expect(frames[0]).toBe(body.slice(0, 20));
    expect(frames.slice(1)).toEqual([
      { code: PARSE_ERROR, id: undefined, message: expect.stringContaining('not a message header') },
      hover(11),
    ]);
  });

  it('skips a message over the limit without keeping it, answers with its id, and reads the next one', () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 12,
      method: 'textDocument/didOpen',
      params: { text: 'x'.repeat(5000) },
    });
    expect(read(bytewise(Buffer.concat([frame(big), frame(hover(13))])), 1000)).toEqual([
      { code: INVALID_REQUEST, id: 12, message: expect.stringContaining(`${big.length} bytes, over`) },
      hover(13),
    ]);
    // The id at the end, as the MCP SDK writes it.
    const tailId = JSON.stringify({
      method: 'x',
      params: { text: 'y'.repeat(5000) },
      jsonrpc: '2.0',
      id: 'r-1',
    });
    expect(read([frame(tailId)], 1000)).toEqual([
      { code: INVALID_REQUEST, id: 'r-1', message: expect.any(String) },
    ]);
    // A claim of 1 GiB that is a lie: the next header ends it.
    const claim = Buffer.from(`Content-Length: ${2 ** 30}\r\n\r\n{"jsonrpc":"2.0","id":14,"method":"x"}`);
    expect(read([claim, frame(hover(15))], 1000)).toEqual([
      { code: INVALID_REQUEST, id: 14, message: expect.stringContaining(`${2 ** 30} bytes`) },
      hover(15),
    ]);
  });
});

describe('reading a request id from the ends of a message', () => {
  it('finds the id near the start or at the very end, and nowhere else', () => {
    expect(readRequestId('{"jsonrpc":"2.0","id":3,"method":"x","params":{"a"', '')).toBe(3);
    expect(readRequestId('{ "method" : "x", "params": {"id": 9, "s": "}"}, "id" : "a\\"b", "z": 1', '')).toBe(
      'a"b',
    );
    expect(readRequestId('', '...,"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(readRequestId('', '..."params":{"id":42}}')).toBeUndefined();
    expect(readRequestId('', '..."text":"x,\\"id\\":42}"}')).toBeUndefined();
    expect(readRequestId('{"params":{"id":1,"text":"cut sho', '')).toBeUndefined();
    expect(readRequestId('{"id":1.5,', '')).toBeUndefined();
    expect(readRequestId('{"id":{"x":1},', '')).toBeUndefined();
    expect(readRequestId('[{"id":1}]', '')).toBeUndefined();
  });
});

describe('the guarded reader', () => {
  function setup() {
    const input = new PassThrough();
    const answers: ResponseMessage[] = [];
    const logs: string[] = [];
    const passed: Message[] = [];
    const reader = new GuardedMessageReader(input, {
      answer: (m) => answers.push(m),
      checkParams,
      log: (l) => logs.push(l),
    });
    reader.listen((m) => {
      if ((m as { method?: string }).method === 'boom') throw new Error('a handler bug');
      passed.push(m);
    });
    const send = (body: string) => input.write(frame(body));
    return { answers, logs, passed, send };
  }

  it('answers every message it cannot pass on, with the id where it can be read', async () => {
    const { answers, logs, passed, send } = setup();
    send('{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":');
    send('[{"jsonrpc":"2.0","id":2,"method":"shutdown"}]');
    send('42');
    send('{"jsonrpc":"2.0","id":3,"method":7}');
    send('{"jsonrpc":"2.0","id":{"n":4},"method":"shutdown"}');
    send('{"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":"no"}');
    send(
      '{"jsonrpc":"2.0","id":6,"method":"textDocument/definition","params":{"textDocument":{"uri":"u"},"position":{"line":1e300,"character":0}}}',
    );
    send(
      '{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"u","languageId":"y","version":1,"text":null}}}',
    );
    send('{"jsonrpc":"2.0","result":1}');
    send('{"jsonrpc":"2.0","method":"boom"}');
    send(hover(7));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answers.map((a) => [a.id, a.error?.code, a.error?.message])).toEqual([
      [1, -32700, expect.stringContaining('the message is not JSON')],
      [null, -32600, 'batches are not supported: send one JSON-RPC message at a time'],
      [null, -32600, expect.stringContaining('a message is a JSON-RPC object')],
      [3, -32600, 'the method must be a string'],
      [null, -32600, 'the id of a shutdown request must be an integer or a string'],
      [5, -32602, 'invalid params for textDocument/hover: params must be an object or an array'],
      [
        6,
        -32602,
        'invalid params for textDocument/definition: params.position.line must be a whole number from 0 to 2147483647, not 1e+300',
      ],
    ]);
    expect(logs.filter((l) => !l.startsWith('refused'))).toEqual([
      'ignored a textDocument/didOpen notification: params.textDocument.text must be a string, not null',
      'dropped a message that is neither a request, a notification nor a response',
      expect.stringContaining('a message could not be handled: Error: a handler bug'),
    ]);
    expect(passed).toEqual([JSON.parse(hover(7))]);
  });
});

describe('the params of each method', () => {
  const position = { textDocument: { uri: 'file:///a.yml' }, position: { line: 0, character: 0 } };
  it.each([
    ['initialize', { processId: null, capabilities: {} }, undefined],
    [
      'initialize',
      { processId: 1.5, capabilities: {} },
      'params.processId must be a whole number from 1 to 2147483647, not 1.5',
    ],
    ['initialize', { processId: null }, 'params.capabilities is missing'],
    [
      'initialize',
      { processId: null, capabilities: {}, rootUri: 7 },
      'params.rootUri must be a string, not 7',
    ],
    [
      'initialize',
      { processId: null, capabilities: {}, workspaceFolders: [{ uri: 'u' }] },
      'params.workspaceFolders[0].name is missing',
    ],
    ['textDocument/hover', position, undefined],
    [
      'textDocument/hover',
      { ...position, position: { line: 0, character: -1 } },
      'params.position.character must be a whole number from 0 to 2147483647, not -1',
    ],
    [
      'textDocument/hover',
      { ...position, textDocument: { uri: null } },
      'params.textDocument.uri must be a string, not null',
    ],
    ['textDocument/hover', null, 'params must be an object, not null'],
    ['textDocument/rename', { ...position, newName: 5 }, 'params.newName must be a string, not 5'],
    ['textDocument/references', position, 'params.context is missing'],
    [
      'textDocument/codeAction',
      {
        textDocument: { uri: 'u' },
        range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        context: { diagnostics: [null] },
      },
      'params.context.diagnostics[0] must be an object, not null',
    ],
    [
      'textDocument/didChange',
      { textDocument: { uri: 'u', version: 2 }, contentChanges: [{ text: 'a' }, { range: 'x', text: 'b' }] },
      'params.contentChanges[1].range must be an object, not the string "x"',
    ],
    [
      'textDocument/didChange',
      { textDocument: { uri: 'u', version: null }, contentChanges: [] },
      'params.textDocument.version must be a whole number from -2147483648 to 2147483647, not null',
    ],
    [
      'workspace/didChangeWatchedFiles',
      { changes: [{ uri: 'u', type: 4 }] },
      'params.changes[0].type must be one of 1, 2, 3, not 4',
    ],
    [
      'workspace/diagnostic',
      { previousResultIds: {} },
      'params.previousResultIds must be an array, not an object',
    ],
    [
      '$/cancelRequest',
      { id: null },
      'params.id must be a whole number from -2147483648 to 2147483647, not null, or params.id must be a string, not null',
    ],
    [
      '$/setTrace',
      { value: 'loud' },
      'params.value must be one of "off", "messages", "verbose", not the string "loud"',
    ],
    ['workspace/executeCommand', 'anything', undefined],
  ])('%s %j: %s', (method, params, problem) => {
    expect(checkParams(method, params)).toBe(problem);
  });

  it('counts only own fields: a "__proto__" key supplies nothing', () => {
    const params: unknown = JSON.parse(
      '{"textDocument":{"__proto__":{"uri":"u"}},"position":{"line":0,"character":0}}',
    );
    expect(checkParams('textDocument/hover', params)).toBe('params.textDocument.uri is missing');
    expect(checkParams('__proto__', {})).toBeUndefined();
    expect(checkParams('toString', {})).toBeUndefined();
  });
});
