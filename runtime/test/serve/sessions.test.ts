/**
 * serve's sessions (issue 27 item 4, as Jupyter's server keeps them): a login URL works once and
 * expires; the cookie holds a session id, never the API token, under a name of this serve's own, so two
 * workspaces' panels stay logged in side by side; bearer tokens stay for API clients, who alone mint new
 * login URLs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LOGIN_TTL_MS, sessionCookieName } from '../../src/serve/gate.js';
import { prWorkspace, serveOnSim } from '../../../test/kit/index.js';
import type { Served } from '../../../test/kit/index.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<Served> {
  const ws = prWorkspace();
  cleanups.push(ws.cleanup);
  const s = await serveOnSim(ws.root, ws.home);
  cleanups.push(s.close);
  return s;
}

async function logIn(url: string, cookie?: string): Promise<{ status: number; cookie: string | undefined }> {
  const answer = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  return { status: answer.status, cookie: answer.headers.get('set-cookie')?.split(';')[0] };
}

const page = (url: string, cookie: string) => fetch(`${url}/api/v1/runs`, { headers: { cookie } });

describe('serve: sessions', () => {
  it('a login URL logs one browser in, once; a reload in that browser goes to the page', async () => {
    const { serve } = await setup();
    const first = await logIn(serve.loginUrl);
    expect(first.status).toBe(303);
    expect(first.cookie).toMatch(/^kairoku_[0-9a-f]{12}=/);
    expect((await page(serve.url, first.cookie!)).status).toBe(200);
    // The same browser, the same URL again (a reload): the page, no new session.
    const reload = await logIn(serve.loginUrl, first.cookie);
    expect(reload).toEqual({ status: 303, cookie: undefined });
    // Another browser with the used URL: refused, saying how to get another.
    const other = await fetch(serve.loginUrl, { redirect: 'manual' });
    expect(other.status).toBe(401);
    const refusal = ((await other.json()) as { refusal: { code: string; message: string } }).refusal;
    expect(refusal.code).toBe('bad-login');
    expect(refusal.message).toContain('serve --login-url');
  });

  it('the cookie is a session id, never the API token, and is worth nothing as a bearer', async () => {
    const { serve } = await setup();
    const { cookie } = await logIn(serve.loginUrl);
    const session = cookie!.split('=')[1]!;
    expect(session).not.toBe(serve.token);
    const asBearer = await fetch(`${serve.url}/api/v1/runs`, {
      headers: { Authorization: `Bearer ${session}` },
    });
    expect(asBearer.status).toBe(401);
    // A made-up session under the right name is nobody's.
    const forged = await page(serve.url, `${cookie!.split('=')[0]}=${'x'.repeat(43)}`);
    expect(forged.status).toBe(401);
  });

  it("names the cookie per serve, so two workspaces' panels stay logged in side by side", async () => {
    const one = await setup();
    const two = await setup();
    const a = await logIn(one.serve.loginUrl);
    const b = await logIn(two.serve.loginUrl);
    expect(a.cookie!.split('=')[0]).not.toBe(b.cookie!.split('=')[0]);
    // One browser holds both cookies (same host, other ports): each serve reads its own.
    const both = `${a.cookie}; ${b.cookie}`;
    expect((await page(one.serve.url, both)).status).toBe(200);
    expect((await page(two.serve.url, both)).status).toBe(200);
    // The other serve's cookie alone opens nothing here.
    expect((await page(one.serve.url, b.cookie!)).status).toBe(401);
    expect(sessionCookieName(one.host.workspace, one.serve.port)).toBe(a.cookie!.split('=')[0]);
  });

  it('mints login URLs for API clients only; each works once', async () => {
    const { serve, api } = await setup();
    const minted = await api('/api/v1/login-urls', { body: {} });
    expect(minted.status).toBe(201);
    const url = (minted.body as unknown as { url: string }).url;
    expect(url).toMatch(new RegExp(`^${serve.url}/\\?login=[A-Za-z0-9_-]{32}$`));
    expect(url).not.toBe(serve.loginUrl);
    const { cookie } = await logIn(url);
    expect((await logIn(url)).status).toBe(401);
    // A browser's session cannot mint them.
    const fromPage = await fetch(`${serve.url}/api/v1/login-urls`, {
      method: 'POST',
      headers: { cookie: cookie! },
    });
    expect(fromPage.status).toBe(403);
    expect(serve.newLoginUrl()).not.toBe(url);
  });

  it('a login URL expires', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    let now = Date.now();
    const { Gate } = await import('../../src/serve/gate.js');
    const gate = new Gate('127.0.0.1', 'api-token', ws.root, () => now);
    gate.port = 1;
    const url = new URL(gate.loginUrl());
    now += LOGIN_TTL_MS + 1;
    const written: { status?: number; body?: string } = {};
    const res = {
      setHeader: () => undefined,
      writeHead: (status: number) => (written.status = status),
      end: (body?: string) => (written.body = body),
    };
    const req = { method: 'GET', headers: { host: '127.0.0.1:1' } };
    expect(gate.admit(req as never, res as never, url)).toBe(false);
    expect(written.status).toBe(401);
    expect(written.body).toContain('bad-login');
  });
});
