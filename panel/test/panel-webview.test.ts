/**
 * The panel as VS Code's Playbooks view shows it, in a real Chromium: `acquireVsCodeApi` exists, so every
 * API call goes to the "extension host" by postMessage; here the test is that host (it forwards each call to
 * the stand-in serve with the bearer token, as the extension does). The page itself has no session: a
 * request of its own would be refused. Also the host's commands: a playbook's start form, a run's tab.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/e2e/support/workbench.js';
import { buildPanel } from '../build.mjs';
import { TOKEN, startFakeApi } from './support/fake-api.js';
import type { FakeApi } from './support/fake-api.js';

let fake: FakeApi;
let browser: Browser;

beforeAll(async () => {
  await buildPanel();
  fake = await startFakeApi();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

interface Host {
  page: Page;
  /** what the page posted to the host */
  posted: { type: string; method?: string; path?: string }[];
  /** sends a host message to the page */
  send(message: unknown): Promise<void>;
  problems: string[];
}

/** The page in "a webview": the test answers its messages as the extension host would. */
async function openInWebview(options: { unreachable?: boolean } = {}): Promise<Host> {
  const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const posted: Host['posted'] = [];
  const send = (message: unknown) => page.evaluate((m) => window.postMessage(m, '*'), message);
  await page.exposeFunction(
    '__toHost',
    async (message: { type: string; id?: number; method?: string; path?: string; body?: unknown }) => {
      posted.push(message);
      if (message.type === 'ready') return send({ type: 'connection', live: true });
      if (message.type !== 'request') return;
      if (options.unreachable)
        return send({
          type: 'response',
          id: message.id,
          status: 0,
          text: 'connect ECONNREFUSED 127.0.0.1:7420',
        });
      const response = await fetch(`${fake.url}/api/v1${message.path}`, {
        method: message.method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: message.body === undefined ? undefined : JSON.stringify(message.body),
      });
      return send({ type: 'response', id: message.id, status: response.status, text: await response.text() });
    },
  );
  // What VS Code gives a webview's scripts (injected through the DevTools protocol: the CSP stays on).
  await page.addInitScript(() => {
    (window as unknown as { acquireVsCodeApi: unknown }).acquireVsCodeApi = () => ({
      postMessage: (message: unknown) => {
        const toHost = (window as unknown as { __toHost: (m: unknown) => Promise<void> }).__toHost;
        void toHost(message); // the host answers by posting back to the page; nothing waits here
      },
    });
  });
  await page.goto(`${fake.url}/`); // no token: the page has no session of its own
  return { page, posted, send, problems };
}

describe('the panel in a VS Code webview', () => {
  it('reaches the API only through the host, and opens the start form and the run the host asks for', async () => {
    const { page, posted, send, problems } = await openInWebview();
    await page.getByRole('heading', { name: 'Open a pull request' }).waitFor();
    await page.locator('.connection.on').waitFor();
    expect(posted.filter((m) => m.type === 'request').map((m) => `${m.method} ${m.path}`)).toEqual(
      // (the run list asks for its first page)
      expect.arrayContaining(['GET /playbooks', 'GET /runs?limit=50&offset=0']),
    );
    expect(posted.some((m) => m.type === 'ready')).toBe(true);

    // Run playbook: the form, its first field focused.
    await send({ type: 'start-playbook', playbook: 'playbooks/pr.yml' });
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    await form.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('in-playbooks-pr-yml-task');
    await page.keyboard.type('Add a --json flag');
    await form.getByRole('button', { name: 'Start run' }).click();
    // Narrow (a side bar), the run list and the run are two views: the new run shows, the list is back.
    await page.getByRole('heading', { level: 2, name: /Open a pull request/ }).waitFor();
    expect(posted.some((m) => m.method === 'POST' && m.path === '/runs')).toBe(true);
    await page.getByRole('button', { name: '← All runs' }).click();
    await page.getByRole('tab', { name: /Open a pull request/ }).waitFor();

    // A run started elsewhere, announced by an event the host forwards, then opened by the host.
    const other = fake.addRun({ title: 'Another run' });
    await send({
      type: 'event',
      event: 'run',
      data: JSON.stringify({ ...(await runItem(other)), version: 1 }),
    });
    await page.getByRole('tab', { name: /Another run/ }).waitFor();
    await send({ type: 'open-run', run: other });
    await page.getByRole('heading', { level: 2, name: /Another run/ }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('run-title');
    await expect(page.getByRole('tab', { name: /Another run/ }).isVisible()).resolves.toBe(false);
    // The same address a browser opens (#/runs/ID/steps/STEP): the run and its step's sheet.
    await send({ type: 'open-run', run: other, step: 'plan' });
    await page.getByRole('complementary', { name: 'plan' }).waitFor();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/runs/${other}/steps/plan`);

    // The stream is down: the page says so.
    await send({ type: 'connection', live: false, message: 'serve went away' });
    await page.locator('.connection.off').waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('says why a playbook cannot start, or is not the workspace’s, instead of opening a form', async () => {
    const { page, send, problems } = await openInWebview();
    await page.getByRole('heading', { name: 'Broken playbook' }).waitFor();
    await send({ type: 'start-playbook', playbook: 'playbooks/broken.yml' });
    await page
      .getByRole('status')
      .filter({ hasText: 'Broken playbook cannot start: It has 1 error' })
      .waitFor();
    await send({ type: 'start-playbook', playbook: 'elsewhere/x.yml' });
    await page
      .getByRole('status')
      .filter({ hasText: "elsewhere/x.yml is not one of this workspace's playbooks." })
      .waitFor();
    expect(await page.getByRole('form').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the host’s reason when serve cannot be reached', async () => {
    const { page } = await openInWebview({ unreachable: true });
    await page
      .getByRole('status')
      .filter({ hasText: 'Could not reach the server: connect ECONNREFUSED 127.0.0.1:7420' })
      .waitFor();
    await page.context().close();
  });
});

async function runItem(id: string): Promise<{ id: string }> {
  const response = await fetch(`${fake.url}/api/v1/runs`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const { runs } = (await response.json()) as { runs: { id: string }[] };
  const run = runs.find((r) => r.id === id);
  if (!run) throw new Error(`the fake API lists no run ${id}`);
  return run;
}
