import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { displayPath } from '@kairoku-playbook/compiler';
import { resolveBindAddress } from '@kairoku-playbook/runtime/backends';
import { flag, parseArgs } from '../args.js';
import { assetText } from '../assets.js';
import { UsageError, readPlaybookFile } from '../io.js';
import type { CommandIo } from '../io.js';
import { PLAYGROUND_HELP } from './playground-help.js';

export { PLAYGROUND_HELP };

/** The page's files by the name it loads them under (cli/build.mjs embeds them in the bundle). */
export function playgroundFiles(): Record<string, { text: string; type: string }> {
  return {
    'index.html': { text: assetText('playgroundIndex'), type: 'text/html; charset=utf-8' },
    'playground.js': { text: assetText('playgroundScript'), type: 'text/javascript; charset=utf-8' },
    'playground.css': { text: assetText('playgroundStyle'), type: 'text/css; charset=utf-8' },
  };
}

/** The page's own policy (its meta tag's), sent as a header too. */
export function playgroundPolicy(indexHtml: string): string {
  const policy = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(indexHtml)?.[1];
  if (!policy) throw new Error('the playground page has no Content-Security-Policy meta tag');
  return policy;
}

/** The fragment that carries a playbook, as the page's share.ts writes it: raw DEFLATE in base64url. */
export function sharedFragment(file: string, text: string): string {
  const playbook = deflateRawSync(Buffer.from(text, 'utf8')).toString('base64url');
  return `#${new URLSearchParams({ file, playbook }).toString()}`;
}

/** Help and usage errors answer at once (as every command's do); the server runs until Ctrl-C. */
export function runPlayground(argv: readonly string[], io: CommandIo): number | Promise<number> {
  const args = parseArgs(argv, { listen: 'string', help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${PLAYGROUND_HELP}\n`);
    return 0;
  }
  if (args.positionals.length > 1)
    throw new UsageError(`playground opens one FILE at most, not ${args.positionals.length}`);
  const listen = flag(args, 'listen') ?? '127.0.0.1:0';
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(listen);
  if (!match || Number(match[2]) > 65535)
    throw new UsageError(`--listen takes HOST:PORT (127.0.0.1:0 picks a free port), not "${listen}"`);
  let fragment = '';
  const given = args.positionals[0];
  if (given !== undefined) {
    const path = resolve(io.cwd, given);
    const read = readPlaybookFile(path, displayPath(path, io.cwd));
    if ('diagnostic' in read) throw new UsageError(`playground: ${read.diagnostic.message}`);
    const name = path.split(/[\\/]/).pop()!;
    fragment = sharedFragment(/\.ya?ml$/.test(name) ? name : 'playbook.yml', read.text);
  }

  return servePlayground(io, match[1]!, Number(match[2]), fragment);
}

async function servePlayground(
  io: CommandIo,
  hostName: string,
  port: number,
  fragment: string,
): Promise<number> {
  const listen = `${hostName}:${port}`;
  let files: ReturnType<typeof playgroundFiles>;
  try {
    files = playgroundFiles();
  } catch (error) {
    // a build that leaves the page out (the VS Code extension's bundled CLI) says so
    throw new UsageError((error as Error).message, { cause: error });
  }
  const policy = playgroundPolicy(files['index.html']!.text);
  let address: string;
  try {
    address = await resolveBindAddress(hostName, { what: `playground --listen ${hostName}` });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  const server = createServer((req, res) => answer(req, res, files, policy));
  await new Promise<void>((done, fail) => {
    server.once('error', (error) =>
      fail(new UsageError(`playground: cannot listen on ${listen}: ${error.message}`)),
    );
    server.listen(port, address, () => done());
  });
  const bound = server.address();
  const shownPort = typeof bound === 'object' && bound ? bound.port : port;
  const host = address.includes(':') ? `[${address}]` : address;
  io.stdout(`kairoku-playbook playground: open http://${host}:${shownPort}/${fragment}\n`);

  return new Promise<number>((done) => {
    const stop = () => {
      server.closeAllConnections();
      server.close(() => done(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

function answer(
  req: IncomingMessage,
  res: ServerResponse,
  files: Record<string, { text: string; type: string }>,
  policy: string,
): void {
  const headers = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('the playground only hands out its page\n');
    return;
  }
  const path = new URL(req.url ?? '/', 'http://playground').pathname;
  const name = path === '/' ? 'index.html' : path.slice(1);
  const file = Object.hasOwn(files, name) ? files[name] : undefined;
  if (!file) {
    res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`no ${path} here: the playground is at /\n`);
    return;
  }
  res.writeHead(200, {
    ...headers,
    'Content-Type': file.type,
    'Content-Security-Policy': policy,
    'Content-Length': Buffer.byteLength(file.text),
  });
  res.end(req.method === 'HEAD' ? undefined : file.text);
}
