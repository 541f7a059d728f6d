// The language servers as the distribution test talks to them: JSON-RPC over stdio, framed as LSP
// (Content-Length) or as MCP's stdio (a message a line), against the installed CLI.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

const clip = (text = '') => (text.length > 2000 ? `${text.slice(0, 2000)}…` : text);

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * Starts `argv` (through sh when it is a string), sends JSON-RPC messages and waits for the answers to
 * the requests among them; then, for LSP, asks the server to shut down and exit, and closes stdin.
 * Framed as LSP (Content-Length) or as MCP's stdio (one message a line).
 */
function converse(argv, messages, { framing, cwd = repo, env = {}, clearEnv = false }) {
  return new Promise((resolve, reject) => {
    const [command, ...args] = typeof argv === 'string' ? ['sh', '-c', argv] : argv;
    const child = spawn(command, args, { cwd, env: clearEnv ? env : { ...process.env, ...env } });
    const send = (message) =>
      child.stdin.write(framing === 'lsp' ? frame(message) : `${JSON.stringify(message)}\n`);
    const waiting = new Set(messages.filter((m) => m.id !== undefined).map((m) => m.id));
    const answers = new Map();
    let buffer = Buffer.alloc(0);
    let stderr = '';
    let closing = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer to ${[...waiting].join(', ')} in 30 s; stderr: ${clip(stderr)}`));
    }, 30_000);
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (waiting.size) reject(new Error(`exited ${code} before answering; stderr: ${clip(stderr)}`));
      else resolve({ answers, code, stderr });
    });
    child.stdout.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (const message of framing === 'lsp' ? lspMessages() : lineMessages()) {
        if (message.id !== undefined && waiting.delete(message.id)) answers.set(message.id, message);
      }
      if (waiting.size > 0) return;
      if (framing === 'lsp' && !closing) {
        closing = true;
        waiting.add('shutdown');
        send({ jsonrpc: '2.0', id: 'shutdown', method: 'shutdown' });
        return;
      }
      if (framing === 'lsp') send({ jsonrpc: '2.0', method: 'exit' });
      child.stdin.end();
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
    function* lspMessages() {
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
        if (buffer.length < end + 4 + length) return;
        const body = buffer.subarray(end + 4, end + 4 + length).toString();
        buffer = buffer.subarray(end + 4 + length);
        yield JSON.parse(body);
      }
    }
    function* lineMessages() {
      for (;;) {
        const end = buffer.indexOf('\n');
        if (end < 0) return;
        const line = buffer.subarray(0, end).toString().trim();
        buffer = buffer.subarray(end + 1);
        if (line) yield JSON.parse(line);
      }
    }
    for (const message of messages) send(message);
  });
}

function frame(message) {
  const body = Buffer.from(JSON.stringify(message));
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
}

const LSP_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { processId: null, rootUri: null, capabilities: {} },
};

export async function lspAnswers(argv, options = {}) {
  const { answers, code } = await converse(argv, [LSP_INITIALIZE], { framing: 'lsp', ...options });
  const capabilities = answers.get(1)?.result?.capabilities;
  assert(
    capabilities?.textDocumentSync !== undefined,
    `initialize answered ${JSON.stringify(answers.get(1))}`,
  );
  assert(code === 0, `the server exited ${code} after shutdown and exit`);
  return capabilities;
}

export async function mcpTools(argv, options = {}) {
  const { answers } = await converse(
    argv,
    [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'test', version: '0' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ],
    { framing: 'lines', ...options },
  );
  assert(answers.get(1)?.result?.serverInfo?.name, `initialize answered ${JSON.stringify(answers.get(1))}`);
  return answers.get(2)?.result?.tools ?? [];
}
