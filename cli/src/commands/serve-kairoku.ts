import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { kairoku } from '@kairoku-playbook/runtime/backends';
import { flag } from '../args.js';
import type { ParsedArgs } from '../args.js';
import { UsageError } from '../io.js';
import type { ServeBackend, ServeBackendEntry } from './serve-backend.js';
import { KAIROKU_SERVE_HELP } from './serve-help.js';

/** serve's flags for `--backend kairoku`. */
const KAIROKU_SERVE_FLAGS = {
  'app-listen': 'string',
  'app-url': 'string',
  'tls-cert': 'string',
  'tls-key': 'string',
  'tls-self-signed': 'boolean',
  'app-token-file': 'string',
  repository: 'string',
} as const;

export const KAIROKU_SERVE: ServeBackendEntry = {
  flags: KAIROKU_SERVE_FLAGS,
  help: KAIROKU_SERVE_HELP,
  setup: ({ args, io, env, home, workspace, log }) =>
    startKairokuApp(args, { home, workspace, cwd: io.cwd, env, log }),
};

/**
 * `serve --backend kairoku`: its flags checked and read (the certificate files, the app token), then
 * handed to the runtime's `kairoku.hostKairokuRuns` (runtime/src/backends/kairoku/serve-backend.ts),
 * which binds, listens and says where runners dial in.
 */
export async function startKairokuApp(
  args: ParsedArgs,
  context: {
    home: string;
    workspace: string;
    cwd: string;
    env: NodeJS.ProcessEnv;
    log: (line: string) => void;
  },
): Promise<ServeBackend> {
  const given = flag(args, 'app-listen') ?? '127.0.0.1:7421';
  const parsed = kairoku.parseHostPort(given);
  if (!parsed)
    throw new UsageError(
      `--app-listen takes HOST:PORT ([::1]:PORT for IPv6; 127.0.0.1:0 picks a free port), not "${given}"`,
    );
  const tls = tlsOf(args, context.cwd);
  const publicUrl = appUrl(flag(args, 'app-url'), tls !== undefined);
  const tokenFlag = flag(args, 'app-token-file');
  const token = usage(() =>
    kairoku.loadAppToken(
      context.env,
      context.home,
      tokenFlag === undefined ? undefined : resolve(context.cwd, tokenFlag),
    ),
  );
  const repository = flag(args, 'repository');
  const { HostingRefused } = await import('@kairoku-playbook/runtime/serve');
  try {
    return await kairoku.hostKairokuRuns({
      listen: { given, ...parsed },
      ...(tls !== undefined ? { tls } : {}),
      ...(publicUrl !== undefined ? { publicUrl } : {}),
      token,
      ...(repository !== undefined ? { repository } : {}),
      home: context.home,
      workspace: context.workspace,
      log: context.log,
    });
  } catch (error) {
    if (error instanceof HostingRefused) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** `--tls-cert` and `--tls-key` read, or `--tls-self-signed`; undefined for plain HTTP (loopback only). */
function tlsOf(args: ParsedArgs, cwd: string): kairoku.TlsIdentity | 'self-signed' | undefined {
  const certFile = flag(args, 'tls-cert');
  const keyFile = flag(args, 'tls-key');
  const selfSigned = args.flags.has('tls-self-signed');
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new UsageError('--tls-cert and --tls-key go together: the certificate and its private key');
  if (selfSigned && certFile !== undefined)
    throw new UsageError('--tls-self-signed makes a certificate: give it or --tls-cert/--tls-key, not both');
  if (selfSigned) return 'self-signed';
  if (certFile === undefined || keyFile === undefined) return undefined;
  try {
    return {
      cert: readFileSync(resolve(cwd, certFile), 'utf8'),
      key: readFileSync(resolve(cwd, keyFile), 'utf8'),
    };
  } catch (error) {
    throw new UsageError(`--tls-cert/--tls-key: ${(error as Error).message}`, { cause: error });
  }
}

function usage<T>(act: () => T): T {
  try {
    return act();
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
}

/**
 * `--app-url`: an http(s) origin (no path, query or credentials), https when the app serves TLS and
 * http only when it does not — a runner refuses plain HTTP off loopback anyway.
 */
function appUrl(given: string | undefined, tls: boolean): string | undefined {
  if (given === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--app-url takes a URL such as https://ci-box.example.com:7421, not "${given}"`);
  }
  const scheme = tls ? 'https:' : 'http:';
  if (url.protocol !== scheme)
    throw new UsageError(
      `--app-url ${given}: the app serves ${tls ? 'TLS' : 'plain HTTP'}, so its URL starts ${scheme}//`,
    );
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    throw new UsageError(`--app-url ${given}: only the scheme, host and port (runners add the routes)`);
  return `${url.protocol}//${url.host}`;
}
