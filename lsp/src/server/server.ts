/**
 * The language server on a pair of streams: the only place a connection is made. Messages are read by a
 * guarded reader (protocol/): a bad one (not JSON, too large, params that do not fit its method) is
 * answered with a JSON-RPC error and never reaches a handler. The server (playbook-server.ts) answers with
 * the language service (../service/), reading the disk through Node.
 */
import { createConnection, ProposedFeatures, StreamMessageWriter } from 'vscode-languageserver/node';
import type { Connection } from 'vscode-languageserver/node';
import { format } from 'node:util';
import { nodeFileSystem } from './node-file-system.js';
import { PlaybookServer } from './playbook-server.js';
import { MAX_MESSAGE_BYTES } from './protocol/framing.js';
import { GuardedMessageReader } from './protocol/message-reader.js';
import { checkParams } from './protocol/params.js';

/**
 * Starts the server on `input` and `output`. When the input ends, the process exits (0 after a shutdown
 * request, 1 otherwise).
 */
export function startServer(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  options: { maxMessageBytes?: number } = {},
): Connection {
  const writer = new StreamMessageWriter(output);
  // Until the connection exists, a refusal's log line goes to stderr.
  let log = (line: string): void => void process.stderr.write(`kairoku-playbook lsp: ${line}\n`);
  const reader = new GuardedMessageReader(input, {
    // The reader cannot wait; an answer that cannot be written is dropped (the client is gone).
    answer: (message) => void writer.write(message).catch(() => undefined),
    checkParams,
    log: (line) => log(line),
    maxMessageBytes: options.maxMessageBytes ?? MAX_MESSAGE_BYTES,
  });
  const connection = createConnection(ProposedFeatures.all, reader, writer);
  log = (line) => connection.console.error(line);
  // On stdio, stdout is the protocol: whatever any module prints goes to the client's log instead.
  if (output === process.stdout) {
    const to =
      (log: (message: string) => void) =>
      (...args: unknown[]) =>
        log(format(...args));
    console.log = console.info = console.debug = to((m) => connection.console.log(m));
    console.warn = to((m) => connection.console.warn(m));
    console.error = to((m) => connection.console.error(m));
  }
  const server = new PlaybookServer(connection, nodeFileSystem);
  server.listen();
  const exit = () => process.exit(server.shutdownReceived ? 0 : 1);
  input.once('end', exit);
  input.once('close', exit);
  return connection;
}

/**
 * `kairoku-playbook lsp --stdio` and `node lsp/dist/stdio.js`: the server on stdin and stdout. Nothing may
 * write to stdout but the protocol; an error no handler caught is logged to stderr, never fatal.
 */
export function serveStdio(): Connection {
  process.on('uncaughtException', (error) =>
    process.stderr.write(`kairoku-playbook lsp: ${error.stack ?? String(error)}\n`),
  );
  process.on('unhandledRejection', (error) =>
    process.stderr.write(
      `kairoku-playbook lsp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    ),
  );
  return startServer(process.stdin, process.stdout);
}
