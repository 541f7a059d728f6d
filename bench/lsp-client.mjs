// A minimal LSP client over a language server's stdio, shared by the benches that time real servers
// (bench/lsp.mjs, bench/lsp-feedback.mjs): start and initialize, wait for a publishDiagnostics, stop.
import { execFileSync, spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import rpc from 'vscode-jsonrpc/node';

const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = rpc;

export const TIMEOUT_MS = 60_000;

export function withTimeout(promise, what, ms = TIMEOUT_MS) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts `node ...argv` in `cwd` and initializes it. Every publishDiagnostics is kept (`published`, by URI;
 * `lastPublish`, its performance.now()) and handed to the waiters of `nextDiagnostics`; window/logMessage
 * lines are kept in `logs`; a request from the server is answered by `onRequest[method]`, else null.
 */
export async function startClient(
  name,
  argv,
  { cwd, clientInfo, initializationOptions, capabilities, onRequest = {} },
) {
  const child = spawn(process.execPath, argv, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-8000)));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const client = {
    name,
    child,
    connection,
    exited,
    stderr: () => stderr,
    logs: [],
    waiters: [],
    published: new Map(),
    lastPublish: 0,
  };
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    const at = performance.now();
    client.lastPublish = at;
    client.published.set(params.uri, params);
    client.waiters = client.waiters.filter((w) => {
      if (!w.match(params)) return true;
      w.resolve({ at, params });
      return false;
    });
  });
  connection.onNotification('window/logMessage', (p) => client.logs.push(p.message));
  connection.onNotification(() => {}); // telemetry etc.
  connection.onRequest((method, params) => (onRequest[method] ? onRequest[method](params) : null));
  connection.listen();
  const init = await withTimeout(
    connection.sendRequest('initialize', {
      processId: process.pid,
      ...(clientInfo ? { clientInfo } : {}),
      rootUri: null,
      workspaceFolders: null,
      capabilities,
      initializationOptions,
    }),
    `${name}: initialize`,
  );
  connection.sendNotification('initialized', {});
  client.capabilities = init.capabilities;
  client.serverInfo = init.serverInfo;
  const sync = init.capabilities.textDocumentSync;
  client.syncKind = typeof sync === 'number' ? sync : (sync?.change ?? 1);
  return client;
}

/** The next publishDiagnostics for which `match(params)` holds: `{ at, params }`. */
export function nextDiagnostics(client, match, what) {
  return withTimeout(
    new Promise((resolve) => client.waiters.push({ match, resolve })),
    `${client.name}: ${what}`,
  );
}

/** shutdown and exit; killed when it does not exit within 3 s. */
export async function stopClient(client) {
  if (!client) return;
  try {
    await withTimeout(client.connection.sendRequest('shutdown'), `${client.name}: shutdown`, 5000);
    client.connection.sendNotification('exit');
  } catch {
    // killed below
  }
  const gone = await Promise.race([client.exited, new Promise((r) => setTimeout(() => r(null), 3000))]);
  if (!gone) {
    client.child.kill('SIGKILL');
    await client.exited;
  }
  client.connection.dispose();
}

/** The commit the bench ran at, for its results file; null outside a checkout. */
export function headCommit(root) {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}
