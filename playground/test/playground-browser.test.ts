/**
 * The playground in a real Chromium (Debian's /usr/bin/chromium, headless, through playwright-core):
 * served by the built CLI's `playground` command, and opened from a file: URL. What it shows is held
 * equal to the CLI's own: the page's `check --format json` to the CLI's for the same file name and
 * text. Waits are for what a person would see (the page's check counter, elements), never sleeps.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../../cli/test/in-process.js';
import { CLI, REPO } from '../../test/kit/cli.js';
import { tempDir } from '../../test/kit/temp.js';
import { launchChromium, pageWithProblems } from '../../test/e2e/support/workbench.js';
import { PLAYGROUND_DIST, buildPlayground, examples } from '../build.mjs';

const PR = readFileSync(join(REPO, 'playbooks', 'pr.yml'), 'utf8');

let browser: Browser;
let server: ChildProcess;
let url: string;
let work: string;

beforeAll(async () => {
  await buildPlayground();
  work = tempDir('playground-test-');
  server = spawn(process.execPath, [CLI, 'playground', '--listen', '127.0.0.1:0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /open (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (found) resolve(found[1]!);
    });
    server.once('exit', (code) =>
      reject(new Error(`playground exited with ${code} before it listened: ${out}`)),
    );
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise<number | null>((done) => server.once('exit', done));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
  rmSync(work, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  problems: string[];
}

/** A fresh page at `address`, its console errors and page errors (a CSP refusal is one) collected. */
async function open(address: string): Promise<Opened> {
  const { page, problems } = await pageWithProblems(browser, { width: 1400, height: 1000 });
  await page.goto(address);
  await page.locator('body[data-generation]').waitFor();
  return { page, problems };
}

const generation = async (page: Page) => Number(await page.locator('body').getAttribute('data-generation'));

/** Waits until the page has checked its text again after `before` (the counter the page bumps). */
async function checkedAfter(page: Page, before: number): Promise<void> {
  await page.waitForFunction((n) => Number(document.body.dataset.generation) > n, before);
}

/** `kairoku-playbook check --format json FILE` by the built CLI, in a folder holding only that file. */
async function cliCheckJson(file: string, text: string): Promise<string> {
  const dir = tempDir('cli-', work);
  writeFileSync(join(dir, file), text);
  const child = spawn(process.execPath, [CLI, 'check', '--format', 'json', file], { cwd: dir });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((done) => child.once('close', done));
  return out;
}

/** The playbook a page's fragment carries, decoded as share.ts encodes it. */
function fragmentText(address: string): { file: string; text: string } {
  const params = new URLSearchParams(new URL(address).hash.slice(1));
  return {
    file: params.get('file')!,
    text: inflateRawSync(Buffer.from(params.get('playbook')!, 'base64url')).toString('utf8'),
  };
}

describe('the playground', () => {
  it('opens on pr.yml, checked, graphed, compiled and explored, with no error in the console', async () => {
    const { page, problems } = await open(url);
    await expect.poll(() => page.locator('#summary').textContent()).toBe('pr.yml: no problems');
    expect(await page.locator('#graph .node-button').count()).toBe(5);
    expect(await page.locator('#graph .wires path.need').count()).toBe(4);
    // the panel's step graph: a step opens its line in the editor
    await page.locator('#graph .node-button[data-step="review"]').click();
    await expect
      .poll(() => page.evaluate(() => document.querySelector('.cm-activeLine')?.textContent))
      .toMatch(/review:/);
    expect(JSON.parse((await page.locator('#ir').textContent())!)).toMatchObject({ id: 'pr' });
    expect(await page.locator('#check-json').textContent()).toBe(await cliCheckJson('pr.yml', PR));
    await page.getByRole('tab', { name: 'Explore' }).click();
    await page.locator('#bound[data-state="complete"]').waitFor();
    await expect.poll(() => page.locator('#bound').textContent()).toContain('every run ends');
    expect(await page.locator('#bound tr[data-step="implement"]').textContent()).toMatch(
      /implement.*agent.*\d/,
    );
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('loads every example of the docs, and shows for each what check --format json prints', async () => {
    // (the page as built here, from the docs as they are now: the CLI's copy is as of its last build)
    const { page, problems } = await open(pathToFileURL(join(PLAYGROUND_DIST, 'index.html')).href);
    const offered = await examples();
    expect(offered.length).toBeGreaterThan(20);
    expect(await page.locator('#example option').count()).toBe(offered.length);
    for (const [i, example] of offered.entries()) {
      const before = await generation(page);
      await page.selectOption('#example', example.origin);
      await checkedAfter(page, before);
      expect(await page.locator('#file').inputValue()).toBe(example.file);
      const dir = join(work, `example-${i}`);
      mkdirSync(dirname(join(dir, example.file)), { recursive: true });
      writeFileSync(join(dir, example.file), example.text);
      const cli = runMain(['check', '--format', 'json', example.file], dir);
      expect(await page.locator('#check-json').textContent(), example.origin).toBe(cli.stdout);
      const printed = JSON.parse(cli.stdout) as { severity: string; related?: unknown[] }[];
      const clean = !printed.some((d) => d.severity === 'error');
      // every related location listed under its diagnostic (the hops of a path, for PB700)
      const related = printed.reduce((sum, d) => sum + (d.related?.length ?? 0), 0);
      expect(await page.locator('.problem .related > li').count(), example.origin).toBe(related);
      expect(await page.locator('#graph').getAttribute('data-state'), example.origin).toBe(
        clean ? 'current' : 'stale',
      );
    }
    expect(problems).toEqual([]);
    await page.context().close();
  }, 600_000);

  it('shows a mistake typed at its range, as check --format json does, and the graph follows the edits', async () => {
    const { page, problems } = await open(url);
    await expect.poll(() => page.locator('#summary').textContent()).toBe('pr.yml: no problems');
    // review's `needs: [qa]` → `needs: [qa, plam]`, typed
    await page.locator('.cm-line', { hasText: /^ {4}needs: \[qa\]$/ }).click();
    await page.keyboard.press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(', plam]');
    const typed = PR.replace('    needs: [qa]\n', '    needs: [qa, plam]\n');
    const at = typed.indexOf('plam]');
    const problem = page.locator(`.problem[data-from="${at}"][data-to="${at + 4}"]`);
    await problem.waitFor();
    expect(await problem.getAttribute('data-code')).toMatch(/^PB\d{3}$/);
    expect(await page.locator('.cm-lintRange-error').textContent()).toBe('plam');
    expect(await page.locator('#check-json').textContent()).toBe(await cliCheckJson('pr.yml', typed));
    expect(await page.locator('#graph').getAttribute('data-state')).toBe('stale');

    // plam → plan: no error left (a note that qa already needs plan), and review now needs plan too:
    // one more edge
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('n]');
    await page.locator('#graph[data-state="current"]').waitFor();
    await expect
      .poll(() => page.locator('#summary').textContent())
      .toMatch(/^pr\.yml: (no problems|0 errors)/);
    expect(await page.locator('#graph .wires path.need').count()).toBe(5);

    // the shared link carries exactly the text in the editor, and opens it again
    await page.getByRole('button', { name: 'Copy link' }).click();
    await expect.poll(() => page.url()).toContain('#file=pr.yml&playbook=');
    const shared = fragmentText(page.url());
    expect(shared).toEqual({
      file: 'pr.yml',
      text: PR.replace('    needs: [qa]\n', '    needs: [qa, plan]\n'),
    });
    const again = await open(page.url());
    await expect
      .poll(() => again.page.locator('#status').textContent())
      .toContain('Opened the playbook the link carries');
    expect(await again.page.locator('#check-json').textContent()).toBe(
      await page.locator('#check-json').textContent(),
    );
    expect(await again.page.locator('#graph .wires path.need').count()).toBe(5);
    expect([...problems, ...again.problems]).toEqual([]);
    await again.page.context().close();
    await page.context().close();
  }, 240_000);

  it('says a damaged link is damaged, and opens the first example instead', async () => {
    for (const [fragment, says] of [
      ['#file=pr.yml&playbook=%21%21%21', 'is not base64url text'],
      ['#file=pr.yml&playbook=AAAA', 'does not decompress'],
      ['#file=../x.yml&playbook=AAAA', 'ending in .yml or .yaml'],
      ['#nothing-here', 'has no playbook in it'],
    ] as const) {
      const { page, problems } = await open(`${url}${fragment}`);
      await expect.poll(() => page.locator('#status').textContent(), { message: fragment }).toContain(says);
      expect(await page.locator('#status').getAttribute('data-kind')).toBe('error');
      await expect.poll(() => page.locator('#summary').textContent()).toBe('pr.yml: no problems');
      expect(problems, fragment).toEqual([]);
      await page.context().close();
    }
  }, 240_000);

  it('is served with its own CSP, and nothing but its three files', async () => {
    const page = await fetch(url);
    const html = await page.text();
    const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(page.headers.get('content-security-policy')).toBe(meta);
    expect(meta).toContain("default-src 'none'");
    expect((await fetch(`${url}playground.js`)).headers.get('content-type')).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await fetch(`${url}playground.css`)).status).toBe(200);
    expect((await fetch(`${url}../package.json`)).status).toBe(404);
    expect((await fetch(url, { method: 'POST', body: 'x' })).status).toBe(405);
  });

  it('works opened from a file: URL', async () => {
    const { page, problems } = await open(pathToFileURL(join(PLAYGROUND_DIST, 'index.html')).href);
    await expect.poll(() => page.locator('#summary').textContent()).toBe('pr.yml: no problems');
    expect(await page.locator('#graph .node-button').count()).toBe(5);
    const before = await generation(page);
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('bogus: 1\n');
    await checkedAfter(page, before);
    await expect.poll(() => page.locator('.problem').count()).toBeGreaterThan(0);
    expect(await page.locator('.problem').first().getAttribute('data-from')).toBe('0');
    await page.getByRole('tab', { name: 'Explore' }).click();
    await page.getByRole('tab', { name: 'check --format json' }).click();
    expect(await page.locator('#check-json').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
