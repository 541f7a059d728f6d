import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { discardBody } from '../backends/http-body.js';
import { refuse } from './answers.js';

export const SESSION_COOKIE = 'kairoku_session';
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
 * (when sent) is this server, and it carries the session — the cookie the login URL sets, or a bearer
 * token. `admit` answers the request itself (a refusal, or the login's redirect) and says false when
 * it must go no further.
 */
export class Gate {
  /** the address as a URL names it (`[::1]` for IPv6) */
  readonly hostPart: string;
  /** the port serve listens on, known once it does */
  port = 0;

  constructor(
    private readonly address: string,
    private readonly token: string,
  ) {
    this.hostPart = address.includes(':') ? `[${address}]` : address;
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
    if (req.method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
      this.logIn(res, url.searchParams.get('token') ?? '');
      return false;
    }
    if (!authorized(req, this.token)) {
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

  /** The login URL: a right token sets the session cookie and leaves the token out of the address bar. */
  private logIn(res: ServerResponse, given: string): void {
    if (!sameToken(given, this.token))
      return refuse(
        res,
        401,
        'bad-token',
        'this token is not the one serve printed; open the URL it printed',
      );
    res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${this.token}; HttpOnly; SameSite=Strict; Path=/`);
    res.writeHead(303, { Location: '/' });
    res.end();
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

function authorized(req: IncomingMessage, token: string): boolean {
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return sameToken(bearer, token);
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === SESSION_COOKIE && sameToken(value.join('='), token)) return true;
  }
  return false;
}
