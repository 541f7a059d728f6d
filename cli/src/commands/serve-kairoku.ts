import { readFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { join, resolve } from 'node:path';
import { kairoku, paseo, resolveBindAddress } from '@kairoku-playbook/runtime/backends';
import type { Backend } from '@kairoku-playbook/runtime';
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
 * `serve --backend kairoku`: the app role of the workspace. One `KairokuBackend`, one listener for
 * every run (the runner routes, and the step agents' report endpoint at `/mcp` with its per-dispatch
 * tokens, RF-008), over TLS wherever it is not loopback. Runs get a view of it whose `close` does
 * nothing: a run that ends lets go of its dispatches, not of the fleet's listener.
 *
 * Recovery (RF-013) is the host's: a dispatch a stopped serve left non-terminal is not known to this
 * backend, so the host's recovery finds its agent gone and fails it (a retry within `retries`, never
 * a relaunch of the same dispatch). The backend listens before the host recovers, so the retries it
 * queues have a report endpoint.
 */
// eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
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
  const listen = flag(args, 'app-listen') ?? '127.0.0.1:7421';
  const parsed = kairoku.parseHostPort(listen);
  if (!parsed)
    throw new UsageError(
      `--app-listen takes HOST:PORT ([::1]:PORT for IPv6; 127.0.0.1:0 picks a free port), not "${listen}"`,
    );
  const certFile = flag(args, 'tls-cert');
  const keyFile = flag(args, 'tls-key');
  const selfSigned = args.flags.has('tls-self-signed');
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new UsageError('--tls-cert and --tls-key go together: the certificate and its private key');
  if (selfSigned && certFile !== undefined)
    throw new UsageError('--tls-self-signed makes a certificate: give it or --tls-cert/--tls-key, not both');
  const tlsWanted = selfSigned || certFile !== undefined;
  const publicUrl = appUrl(flag(args, 'app-url'), tlsWanted);

  let address: string;
  try {
    address = await resolveBindAddress(parsed.host, {
      what: `--app-listen ${listen}`,
      allowNonLoopback: tlsWanted,
      allowWildcard: tlsWanted,
      howToAllow:
        'serve it over TLS (--tls-self-signed, or --tls-cert FILE --tls-key FILE): the app credential is not sent in the clear',
    });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }

  let tls: kairoku.TlsIdentity | undefined;
  let fingerprint: string | undefined;
  const banner: string[] = [];
  if (certFile !== undefined && keyFile !== undefined) {
    try {
      tls = {
        cert: readFileSync(resolve(context.cwd, certFile), 'utf8'),
        key: readFileSync(resolve(context.cwd, keyFile), 'utf8'),
      };
      fingerprint = kairoku.fingerprintOf(tls.cert);
    } catch (error) {
      throw new UsageError(`--tls-cert/--tls-key: ${(error as Error).message}`, { cause: error });
    }
  } else if (selfSigned) {
    const made = kairoku.selfSignedIdentity(
      join(context.home, 'kairoku', 'tls'),
      certificateNames(parsed.host, address, publicUrl),
    );
    tls = made;
    fingerprint = made.fingerprint;
    if (made.made)
      context.log(
        `made a self-signed certificate (${made.why}): ${made.certFile}; runners pin its fingerprint`,
      );
  }

  let token: { value: string; file: string | undefined };
  try {
    const tokenFlag = flag(args, 'app-token-file');
    token = kairoku.loadAppToken(
      context.env,
      context.home,
      tokenFlag === undefined ? undefined : resolve(context.cwd, tokenFlag),
    );
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }

  const backend = new kairoku.KairokuBackend({
    appToken: token.value,
    target: {
      repository: flag(args, 'repository') ?? context.workspace,
      baseBranch: paseo.currentBranch(context.workspace) ?? 'HEAD',
    },
    onFault: (text) => context.log(`kairoku: ${text}`),
  });
  let url: string;
  try {
    url = await backend.listen(address, parsed.port, {
      requireTlsOffLoopback: true,
      allowWildcard: tls !== undefined,
      ...(tls ? { tls } : {}),
      ...(publicUrl !== undefined ? { publicUrl } : {}),
    });
  } catch (error) {
    throw new UsageError((error as Error).message, { cause: error });
  }
  banner.push(`kairoku app: ${url}`);
  if (fingerprint) banner.push(`kairoku app fingerprint (SHA-256): ${fingerprint}`);
  banner.push(
    `runners: kairoku-playbook runner --app ${url}${fingerprint ? ` --app-fingerprint ${fingerprint}` : ''} --token-file ${token.file ?? '<a file with $KAIROKU_APP_TOKEN>'} --repo PATH${flag(args, 'repository') ? ` --repository ${flag(args, 'repository')}` : ''}`,
  );

  const view: Backend = {
    name: backend.name,
    perform: (effect, ctx) => backend.perform(effect, ctx),
    agentExists: (agent) => backend.agentExists(agent),
  };
  return { backendFor: () => view, banner, close: () => backend.close() };
}

/**
 * The names a self-signed certificate holds: the address bound and the name it was given as, this
 * machine's name and loopback, and — bound to every interface — every address of this machine, so
 * an agent that checks the name (it trusts the certificate as its own CA) accepts the address its
 * runner dialled.
 */
function certificateNames(asGiven: string, address: string, publicUrl?: string): string[] {
  const names = [asGiven, address, 'localhost', '127.0.0.1', '::1', hostname()];
  if (publicUrl !== undefined) names.push(new URL(publicUrl).hostname.replace(/^\[|\]$/g, ''));
  if (address === '0.0.0.0' || address === '::')
    for (const entries of Object.values(networkInterfaces()))
      for (const entry of entries ?? []) names.push(entry.address);
  return names.filter((n) => n !== '0.0.0.0' && n !== '::' && n !== '');
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
