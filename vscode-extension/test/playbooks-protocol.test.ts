/**
 * The Playbooks view's page and the extension host: the messages (the same lists on both sides), what the
 * host accepts from the page, and the page's HTML (the panel's own files under a strict CSP).
 */
import { describe, expect, it } from 'vitest';
import * as panelSide from '@kairoku-playbook/panel/webview-transport';
import { HOST_MESSAGE_TYPES, PAGE_MESSAGE_TYPES, isApiPath, pageMessage } from '../src/playbooks-protocol.js';
import { playbooksPageCsp, renderPlaybooksPage } from '../src/playbooks-page.js';

describe('the messages', () => {
  it('are the same on both sides', () => {
    expect(PAGE_MESSAGE_TYPES).toEqual(panelSide.PAGE_MESSAGE_TYPES);
    expect(HOST_MESSAGE_TYPES).toEqual(panelSide.HOST_MESSAGE_TYPES);
  });

  it('from the page: ready, and requests for a path under /api/v1', () => {
    expect(pageMessage({ type: 'ready' })).toEqual({ type: 'ready' });
    expect(pageMessage({ type: 'request', id: 1, method: 'GET', path: '/runs?archived=1' })).toEqual({
      type: 'request',
      id: 1,
      method: 'GET',
      path: '/runs?archived=1',
    });
    const body = { choice: 'approve', comment: 'ok' };
    expect(
      pageMessage({ type: 'request', id: 7, method: 'POST', path: '/runs/pr-1/gates/ship', body }),
    ).toEqual({ type: 'request', id: 7, method: 'POST', path: '/runs/pr-1/gates/ship', body });
  });

  it('refuses anything else: other methods, a body on a GET, paths that leave /api/v1 or name a host', () => {
    const refused = [
      null,
      'ready',
      { type: 'request', id: 1, method: 'DELETE', path: '/runs' },
      { type: 'request', id: 1.5, method: 'GET', path: '/runs' },
      { type: 'request', id: 1, method: 'GET', path: '/runs', body: {} },
      { type: 'request', id: 1, method: 'GET', path: 'runs' },
      { type: 'request', id: 1, method: 'GET', path: '/../../assets/panel.js' },
      { type: 'request', id: 1, method: 'GET', path: '/runs/./x' },
      { type: 'request', id: 1, method: 'GET', path: '//evil.example/api' },
      { type: 'request', id: 1, method: 'GET', path: '/runs#x' },
      { type: 'request', id: 1, method: 'GET', path: '/runs\n' },
      { type: 'open-run', run: 'x' },
    ];
    for (const message of refused) expect([message, pageMessage(message)]).toEqual([message, undefined]);
    expect(isApiPath('/runs/pr-1%2F..')).toBe(true); // (encoded: one segment to serve, never a path)
    expect(isApiPath('/runs/..')).toBe(false);
  });
});

describe("the view's page", () => {
  const page = renderPlaybooksPage({
    cspSource: 'https://*.vscode-cdn.net',
    script: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/panel/panel.js',
    style: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/panel/panel.css',
  });

  it('loads the panel’s script and style from the extension’s files, and nothing inline', () => {
    expect([...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script type="module" src="https://file+.vscode-resource.vscode-cdn.net/ext/dist/panel/panel.js">',
    ]);
    expect(page).toContain(
      '<link rel="stylesheet" href="https://file+.vscode-resource.vscode-cdn.net/ext/dist/panel/panel.css">',
    );
    expect(page).not.toMatch(/<style|\sstyle=|\son\w+=/);
    expect(page).toContain('<div id="app"></div>');
  });

  it('has a strict CSP: the extension’s files only, no inline code, no network', () => {
    // (the attribute is HTML-escaped: the browser reads &#39; as ')
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/
      .exec(page)![1]!
      .replace(/&#39;/g, "'");
    expect(csp).toBe(playbooksPageCsp('https://*.vscode-cdn.net'));
    expect(csp.split('; ')).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        'script-src https://*.vscode-cdn.net',
        'style-src https://*.vscode-cdn.net',
        "connect-src 'none'",
      ]),
    );
    expect(csp).not.toContain('unsafe');
    expect(csp).not.toContain('nonce');
  });

  it('refuses a CSP source that would add to the policy', () => {
    expect(() =>
      renderPlaybooksPage({ cspSource: "https://x 'unsafe-inline'", script: '', style: '' }),
    ).toThrow(/CSP source/);
  });
});
