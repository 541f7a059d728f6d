import { lookup as dnsLookup } from 'node:dns/promises';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import type { PeerCertificate } from 'node:tls';
import { checkBody, describeProblems } from '../backends/kairoku/protocol.js';
import type { ErrorBody, RequestOf, ResponseOf, Route } from '../backends/kairoku/protocol.js';
import { addressKind } from '../backends/bind-address.js';
import { pemOf } from '../backends/kairoku/tls.js';

/** The app refused the credential (401): the runner stops in full (RF-012). */
export class Unauthorized extends Error {}

/**
 * The app is not the one this runner trusts (a certificate that does not match the pinned
 * fingerprint, or is not signed by the CA given), or is plain HTTP off loopback: the credential is
 * never sent, and the runner stops in full, as on a 401.
 */
export class AppUntrusted extends Unauthorized {}

/** How the runner knows the app: nothing (plain HTTP on loopback, or a CA the system trusts), a CA, a pin. */
export interface AppTrust {
  /** PEM: the CA (or the app's own certificate) the app's certificate must chain to */
  ca?: string;
  /** the app certificate's SHA-256 fingerprint (`AB:CD:…`, canonical): nothing else is accepted */
  fingerprint?: string;
  /** the resolver for the plain-HTTP loopback check (tests) */
  lookup?: (host: string) => Promise<{ address: string }>;
}

/** The app answered with an error status (other than 401). */
export class AppRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The app could not be reached, or answered something that is not the protocol. */
export class AppUnreachable extends Error {}

/**
 * The runner's side of the protocol: one POST per route under the app credential. Requests are
 * checked before they leave (a bug if one does not fit), and responses when they arrive: an answer
 * that does not fit its schema is treated as the app being unreachable, with the same backoff.
 */
export class AppClient {
  private agent: HttpAgent | HttpsAgent | undefined;
  private connecting: Promise<HttpAgent | HttpsAgent> | undefined;
  private readonly url: URL;
  /** the app's certificate as trusted (PEM), once known: what agents are told to trust */
  trustedPem: string | undefined;

  constructor(
    private readonly appUrl: string,
    private readonly token: string,
    private readonly timeoutMs = 10_000,
    private readonly trust: AppTrust = {},
  ) {
    this.url = new URL(appUrl);
  }

  /**
   * The connection pool to the app, made once it is trusted: plain HTTP only to a loopback address
   * (judged by what the host resolves to); over TLS, the app's certificate checked against the CA
   * given, or — pinned — fetched once in a handshake that sends nothing, its fingerprint compared,
   * and from then on the only certificate accepted (a changed one fails the handshake).
   */
  private connection(): Promise<HttpAgent | HttpsAgent> {
    if (this.agent) return Promise.resolve(this.agent);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async connect(): Promise<HttpAgent | HttpsAgent> {
    const host = this.url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (this.url.protocol === 'http:') {
      let address: string;
      try {
        ({ address } = await (this.trust.lookup ?? defaultLookup)(host));
      } catch (error) {
        throw new AppUnreachable(`cannot resolve the app's host ${host}: ${(error as Error).message}`);
      }
      if (addressKind(address) !== 'loopback')
        throw new AppUntrusted(
          `the app ${this.appUrl} is plain HTTP on ${address}, which is not loopback: the credential is not sent in the clear; serve the app over TLS (https://…) and give --app-fingerprint or --app-ca`,
        );
      return (this.agent = new HttpAgent({ keepAlive: true }));
    }
    const pin = this.trust.fingerprint;
    let ca = this.trust.ca;
    if (pin) {
      const cert = await peerCertificate(this.url);
      if (cert.fingerprint256 !== pin)
        throw new AppUntrusted(
          `the app at ${this.url.host} presented a certificate with fingerprint ${cert.fingerprint256}, not the pinned ${pin} (--app-fingerprint): refusing it`,
        );
      ca = pemOf(cert.raw);
    }
    this.trustedPem = ca;
    return (this.agent = new HttpsAgent({
      keepAlive: true,
      ...(ca !== undefined ? { ca } : {}),
      ...(pin
        ? {
            // Pinned: the fingerprint is the identity, whatever names the certificate holds.
            checkServerIdentity: (_host: string, cert: PeerCertificate) =>
              cert.fingerprint256 === pin
                ? undefined
                : new AppUntrusted(
                    `the app's certificate changed: ${cert.fingerprint256} is not the pinned ${pin}`,
                  ),
          }
        : {}),
    }));
  }

  /** Checks the link to the app now (the first request would anyway): for a clear error at start. */
  async check(): Promise<void> {
    await this.connection();
  }

  close(): void {
    this.agent?.destroy();
  }

  async post<R extends Route>(route: R, body: RequestOf[R]): Promise<ResponseOf[R]> {
    const own = checkBody(`${route}.request`, body);
    if (own.length)
      throw new Error(`BUG: the runner built a ${route} request that does not fit: ${describeProblems(own)}`);
    const agent = await this.connection();
    let response: { status: number; text: string };
    try {
      response = await send(
        this.url,
        `/v1/${route}`,
        agent,
        this.token,
        JSON.stringify(body),
        this.timeoutMs,
      );
    } catch (error) {
      if (isTrustFailure(error))
        throw new AppUntrusted(`the app at ${this.url.host} is not trusted: ${(error as Error).message}`);
      throw new AppUnreachable(`the app at ${this.appUrl} is unreachable: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.text);
    } catch {
      throw new AppUnreachable(
        `the app answered ${route} with ${response.status} and a body that is not JSON`,
      );
    }
    if (response.status === 401)
      throw new Unauthorized(errorMessage(parsed) ?? 'the app refused the credential');
    if (response.status !== 200) {
      const problems = checkBody('error', parsed);
      if (problems.length)
        throw new AppUnreachable(
          `the app answered ${route} with ${response.status} and a body that is not an error`,
        );
      const error = (parsed as ErrorBody).error;
      throw new AppRefusal(response.status, error.code, error.message);
    }
    const problems = checkBody(`${route}.response`, parsed);
    if (problems.length)
      throw new AppUnreachable(
        `the app's ${route} response does not fit its schema: ${describeProblems(problems)}`,
      );
    return parsed as ResponseOf[R];
  }
}

const defaultLookup = (host: string) => dnsLookup(host);

/** TLS errors that say the app is not who it should be (as opposed to the app being down). */
function isTrustFailure(error: unknown): boolean {
  if (error instanceof AppUntrusted) return true;
  const code = (error as { code?: string }).code ?? '';
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME/.test(code);
}

/** The certificate the app presents, from a handshake that sends nothing else. */
function peerCertificate(url: URL): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = tlsConnect({
      host,
      port: Number(url.port || 443),
      // Checked by fingerprint below, not by a chain: the pin is the trust.
      rejectUnauthorized: false,
      ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
      timeout: 10_000,
    });
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      socket.destroy();
      if (!cert.raw) reject(new AppUnreachable(`the app at ${url.host} presented no certificate`));
      else resolve(cert);
    });
    socket.once('timeout', () => {
      socket.destroy();
      reject(new AppUnreachable(`the app at ${url.host} did not finish a TLS handshake in 10 s`));
    });
    socket.once('error', (error) =>
      reject(new AppUnreachable(`the app at ${url.host} is unreachable: ${error.message}`)),
    );
  });
}

function send(
  url: URL,
  path: string,
  agent: HttpAgent | HttpsAgent,
  token: string,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const options: RequestOptions = {
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port || (url.protocol === 'https:' ? 443 : 80),
      path,
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        authorization: `Bearer ${token}`,
      },
      signal: AbortSignal.timeout(timeoutMs),
    };
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    };
    const req =
      url.protocol === 'https:' ? httpsRequest(options, onResponse) : httpRequest(options, onResponse);
    req.on('error', reject);
    req.end(body);
  });
}

function errorMessage(body: unknown): string | undefined {
  const message = (body as ErrorBody | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}
