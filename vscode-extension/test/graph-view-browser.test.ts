/**
 * The graph view's page in real Chromium: the page graph-view.ts writes, with the panel's graph.js and
 * graph.css built for the test and served from 127.0.0.1 as the webview serves the extension's files, under
 * the page's own CSP. `acquireVsCodeApi` is the one stand-in: it records what the page posts.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlaybookLanguageService } from '@kairoku-playbook/lsp';
import type { GraphAnswer } from '@kairoku-playbook/protocol';
import { buildGraphView } from '../../panel/build.mjs';
import { launchChromium, pageWithProblems } from '../../test/e2e/support/workbench.js';
import { tempDir } from '../../test/kit/index.js';
import { renderGraphPage } from '../src/graph-page.js';
import type { GraphRunLink } from '../src/graph-view.js';

const NONCE = 'dGVzdC1ub25jZS0xMjM0NTY=';
const repo = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

function answerOf(file: string): GraphAnswer {
  const service = new PlaybookLanguageService({
    readFile: () => ({ problem: 'missing', message: 'no such file' }),
    readDirectory: () => [],
  });
  const uri = `file:///workspace/${file}`;
  service.setFolders([{ uri: 'file:///workspace', name: 'workspace' }]);
  service.openDocument(uri, readFileSync(repo(file), 'utf8'), 1);
  return JSON.parse(JSON.stringify(service.graph(uri))) as GraphAnswer;
}

let browser: Browser;
let server: Server;
let origin: string;
/** the page each test asks for, by path */
const pages = new Map<string, string>();

beforeAll(async () => {
  const assets = tempDir('kp-graph-view-');
  await buildGraphView(assets, { minify: false });
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    const page = pages.get(path);
    if (page !== undefined) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      return;
    }
    const asset = { '/assets/graph.js': 'text/javascript', '/assets/graph.css': 'text/css' }[path];
    if (!asset) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': asset }).end(readFileSync(join(assets, path.slice(8))));
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((closed) => server?.close(closed));
});

/** The page for a playbook, opened at `width`, with what it posts recorded in `window.posted`. */
async function openGraph(file: string, width: number, runs?: GraphRunLink[]) {
  const path = `/${pages.size}.html`;
  const assets = {
    cspSource: origin,
    script: `${origin}/assets/graph.js`,
    style: `${origin}/assets/graph.css`,
  };
  pages.set(
    path,
    renderGraphPage(answerOf(file), { nonce: NONCE, assets, file, ...(runs ? { runs } : {}) }).html,
  );
  const { page, problems } = await pageWithProblems(browser, { width, height: 900 });
  await page.addInitScript(() => {
    const posted: unknown[] = [];
    Object.assign(window, {
      posted,
      acquireVsCodeApi: () => ({ postMessage: (m: unknown) => posted.push(m) }),
    });
  });
  await page.goto(`${origin}${path}`);
  await page.locator('#graph .node-button').first().waitFor();
  return { page, problems };
}

const posted = (page: Page) => page.evaluate(() => (window as unknown as { posted: unknown[] }).posted);

/** Each node's step, top and width, as drawn. */
function nodes(page: Page) {
  return page.locator('#graph .node-button').evaluateAll((buttons) =>
    buttons.map((b) => {
      const box = b.getBoundingClientRect();
      return {
        step: (b as HTMLElement).dataset.step!,
        top: Math.round(box.top),
        width: Math.round(box.width),
      };
    }),
  );
}

describe('the graph view draws the panel’s step graph', () => {
  it('puts each step one row below its deepest need, with a line per need and a lane per loop', async () => {
    const { page, problems } = await openGraph('playbooks/pr.yml', 1000);
    const drawn = await nodes(page);
    expect(drawn.map((n) => n.step)).toEqual(['plan', 'implement', 'qa', 'review', 'ship']);
    for (let i = 1; i < drawn.length; i++) expect(drawn[i]!.top).toBeGreaterThan(drawn[i - 1]!.top);
    expect(await page.locator('#graph .wires path.need').count()).toBe(4);
    expect(await page.locator('#graph .wires .loop text').allTextContents()).toEqual([
      'fail ×3',
      'changes_requested ×3',
      'revise ×2',
    ]);
    // the playbook's words on the node: the condition, and the role beside the kind
    expect(await page.locator('#graph .node-button[data-step="review"]').textContent()).toContain(
      'when inputs.strict || inputs.reviewers > 1',
    );
    expect(problems).toEqual([]);
  });

  it('puts parallel steps side by side, and widens nodes with the view from 132 to 240 px', async () => {
    const wide = await openGraph('playbooks/research.yml', 1400);
    const drawn = await nodes(wide.page);
    const row = drawn.filter((n) => ['docs', 'ecosystem', 'codebase', 'prior-art'].includes(n.step));
    expect(new Set(row.map((n) => n.top)).size).toBe(1);
    expect(Math.max(...drawn.map((n) => n.width))).toBeLessThanOrEqual(240);
    expect(drawn[0]!.width).toBeGreaterThan(200);
    const narrow = await openGraph('playbooks/research.yml', 420);
    expect(Math.min(...(await nodes(narrow.page)).map((n) => n.width))).toBeGreaterThanOrEqual(130);
    expect(narrow.problems).toEqual([]);
  });

  it('reveals a step (its line and column) on a click or Enter, and opens an active run', async () => {
    const { page } = await openGraph('playbooks/pr.yml', 1000, [
      { id: 'pr-1a2b3c', status: 'running', waiting: 1 },
    ]);
    const { steps } = answerOf('playbooks/pr.yml') as Extract<GraphAnswer, { kind: 'graph' }>;
    const [qa, review] = ['qa', 'review'].map((name) => steps.find((s) => s.name === name)!);
    await page.locator('#graph .node-button[data-step="qa"]').click();
    await page.keyboard.press('ArrowDown');
    await expect
      .poll(() => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.step))
      .toBe('review');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Open run pr-1a2b3c in the Playbooks view' }).click();
    await page.locator('section.loops button').first().click();
    const messages = await posted(page);
    expect(messages.slice(0, 3)).toEqual([
      { type: 'reveal', line: qa!.line, column: qa!.character },
      { type: 'reveal', line: review!.line, column: review!.character },
      { type: 'open-run', run: 'pr-1a2b3c' },
    ]);
    expect(messages[3]).toMatchObject({ type: 'reveal' });
  });
});
