import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import type { Backend } from '../../driver/backend.js';
import { HostingRefused } from '../../host/hosting-backend.js';
import type { HostingBackend } from '../../host/hosting-backend.js';
import { resolveBindAddress } from '../bind-address.js';
import { currentBranch } from '../paseo/worktree.js';
import { KairokuBackend } from './backend.js';
import { fingerprintOf, selfSignedIdentity } from './tls.js';
import type { TlsIdentity } from './tls.js';

export interface KairokuHostingRequest {
  /** where the app listens (`--app-listen`), as given and parsed */
  listen: { given: string; host: string; port: number };
  /** the app's TLS: a certificate and key, or one made and kept in the home (`--tls-self-signed`) */
  tls?: TlsIdentity | 'self-signed';
  /** the URL runners dial (`--app-url`), when not the address bound */
  publicUrl?: string;
  /** the app credential, and the file it came from (for the runners' line in the banner) */
  token: { value: string; file: string | undefined };
  /** the repository runners clone (`--repository`; default the workspace) */
  repository?: string;
  home: string;
  workspace: string;
  log: (line: string) => void;
}

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
export async function hostKairokuRuns(request: KairokuHostingRequest): Promise<HostingBackend> {
  const { listen, publicUrl, token } = request;
  const tlsWanted = request.tls !== undefined;
  const address = await refusedAs(() =>
    resolveBindAddress(listen.host, {
      what: `--app-listen ${listen.given}`,
      allowNonLoopback: tlsWanted,
      allowWildcard: tlsWanted,
      howToAllow:
        'serve it over TLS (--tls-self-signed, or --tls-cert FILE --tls-key FILE): the app credential is not sent in the clear',
    }),
  );
  const identity = tlsIdentity(request, address);
  const backend = new KairokuBackend({
    appToken: token.value,
    target: {
      repository: request.repository ?? request.workspace,
      baseBranch: currentBranch(request.workspace) ?? 'HEAD',
    },
    onFault: (text) => request.log(`kairoku: ${text}`),
  });
  const url = await refusedAs(() =>
    backend.listen(address, listen.port, {
      requireTlsOffLoopback: true,
      allowWildcard: identity !== undefined,
      ...(identity ? { tls: identity.tls } : {}),
      ...(publicUrl !== undefined ? { publicUrl } : {}),
    }),
  );
  const fingerprint = identity?.fingerprint;
  const repository = request.repository ? ` --repository ${request.repository}` : '';
  const banner = [
    `kairoku app: ${url}`,
    ...(fingerprint ? [`kairoku app fingerprint (SHA-256): ${fingerprint}`] : []),
    `runners: kairoku-playbook runner --app ${url}${fingerprint ? ` --app-fingerprint ${fingerprint}` : ''} --token-file ${token.file ?? '<a file with $KAIROKU_APP_TOKEN>'} --repo PATH${repository}`,
  ];
  const view: Backend = {
    name: backend.name,
    perform: (effect, ctx) => backend.perform(effect, ctx),
    agentExists: (agent) => backend.agentExists(agent),
  };
  return { backendFor: () => view, banner, close: () => backend.close() };
}

/** The certificate the app serves and its fingerprint; a self-signed one made (or kept) in the home. */
function tlsIdentity(
  request: KairokuHostingRequest,
  address: string,
): { tls: TlsIdentity; fingerprint: string } | undefined {
  if (request.tls === undefined) return undefined;
  if (request.tls !== 'self-signed')
    return { tls: request.tls, fingerprint: fingerprintOf(request.tls.cert) };
  const made = selfSignedIdentity(
    join(request.home, 'kairoku', 'tls'),
    certificateNames(request.listen.host, address, request.publicUrl),
  );
  if (made.made)
    request.log(
      `made a self-signed certificate (${made.why}): ${made.certFile}; runners pin its fingerprint`,
    );
  return { tls: made, fingerprint: made.fingerprint };
}

async function refusedAs<T>(act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (error) {
    throw new HostingRefused((error as Error).message, { cause: error });
  }
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
