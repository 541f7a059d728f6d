import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardBody } from '../backends/http-body.js';
import { refuse } from './answers.js';

/** How long a login URL works (once) after it was made. */
export const LOGIN_TTL_MS = 10 * 60_000;
/** Sessions kept (the oldest goes first): a browser per login, far more than anyone opens. */
const MAX_SESSIONS = 1000;

/**
 * The session cookie's name for one serve: its workspace and port, hashed. Cookies are not kept apart by
 * port, so a name per serve lets two panels (two workspaces) stay logged in side by side.
 */
export function sessionCookieName(workspace: string, port: number): string {
  return `kairoku_${createHash('sha256').update(`${workspace}\0${port}`).digest('hex').slice(0, 12)}`;
}
/** Every answer carries it: no inline script or style, nothing from elsewhere. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  // The login URL holds the token: it never leaves in a Referer.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * What a request passes before serve reads it: its Host names this server (DNS rebinding), its Origin
 * (when sent) is this server, and it carries a session — the cookie a login URL sets, or the API token
 * as a bearer. Sessions as Jupyter's server keeps them: a login URL carries a nonce that works once and
 * expires (`LOGIN_TTL_MS`); the cookie holds a session id made for that browser, never the API token,
 * under a name of this serve's own (`sessionCookieName`). `admit` answers the request itself (a
 * refusal, or the login's redirect) and says false when it must go no further.
 */
export class Gate {
  /** the address as a URL names it (`[::1]` for IPv6) */
  readonly hostPart: string;
  /** the port serve listens on, known once it does */
  port = 0;
  /** login nonces not used yet → when they stop working */
  private readonly logins = new Map<string, number>();
  private readonly sessions = new Set<string>();

  constructor(
    private readonly address: string,
    private readonly token: string,
    private readonly workspace: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.hostPart = address.includes(':') ? `[${address}]` : address;
  }

  /** A new login URL: its nonce works once, for `LOGIN_TTL_MS`. */
  loginUrl(): string {
    const now = this.clock();
    for (const [nonce, until] of this.logins) if (until <= now) this.logins.delete(nonce);
    const nonce = randomBytes(24).toString('base64url');
    this.logins.set(nonce, now + LOGIN_TTL_MS);
    return `http://${this.hostPart}:${this.port}/?login=${nonce}`;
  }

  get cookieName(): string {
    return sessionCookieName(this.workspace, this.port);
  }

  admit(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const allowed = this.allowedHosts();
    if (!allowed.has(req.headers.host ?? '')) {
      discardBody(req, { maxBytes: 0 });
      const here = `http://${this.hostPart}:${this.port}`;
      refuse(res, 403, 'bad-host', `the Host header must name this server (${here})`);
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowed.has(origin.replace(/^http:\/\//, ''))) {
      refuse(res, 403, 'bad-origin', 'requests from other sites are refused');
      return false;
    }
    if (req.method === 'GET' && url.pathname === '/' && url.searchParams.has('login')) {
      this.logIn(req, res, url.searchParams.get('login') ?? '');
      return false;
    }
    if (!this.authorized(req)) {
      discardBody(req, { maxBytes: 0 });
      refuse(
        res,
        401,
        'unauthorized',
        'open the URL kairoku-playbook serve printed (it logs this browser in), or send Authorization: Bearer TOKEN',
      );
      return false;
    }
    return true;
  }

  /**
   * A login URL: a nonce not used yet and not expired makes a session for this browser (its cookie) and
   * leaves the nonce out of the address bar. A browser that has a session already (a reload of the login
   * URL) goes to the page.
   */
  private logIn(req: IncomingMessage, res: ServerResponse, nonce: string): void {
    if (!this.hasSession(req)) {
      const until = this.logins.get(nonce);
      this.logins.delete(nonce);
      if (until === undefined || until <= this.clock())
        return refuse(
          res,
          401,
          'bad-login',
          "this login URL was used already, has expired, or is not this serve's: get a new one with kairoku-playbook serve --login-url",
        );
      const session = randomBytes(32).toString('base64url');
      this.sessions.add(session);
      if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.values().next().value!);
      res.setHeader('Set-Cookie', `${this.cookieName}=${session}; HttpOnly; SameSite=Strict; Path=/`);
    }
    res.writeHead(303, { Location: '/' });
    res.end();
  }

  /** A bearer API token (API clients), or this serve's session cookie (a logged-in browser). */
  private authorized(req: IncomingMessage): boolean {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) return sameToken(bearer, this.token);
    return this.hasSession(req);
  }

  private hasSession(req: IncomingMessage): boolean {
    const name = this.cookieName;
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const [key, ...value] = part.trim().split('=');
      if (key === name && this.sessions.has(value.join('='))) return true;
    }
    return false;
  }

  /**
   * The Host a request may name: the address serve is bound to, as its URL says it, and `localhost`;
   * plus the other loopback spelling when serve is on the usual one.
   */
  private allowedHosts(): Set<string> {
    const port = this.port;
    const usual = this.address === '127.0.0.1' || this.address === '::1';
    return new Set([
      `${this.hostPart}:${port}`,
      `localhost:${port}`,
      ...(usual ? [`127.0.0.1:${port}`, `[::1]:${port}`] : []),
    ]);
  }
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
