/**
 * The newcomer's path of issue 9 against the real thing: the built CLI's `serve` (a real process, the
 * panel embedded in the bundle, the real HTTP API and event stream) in a real Chromium (Debian's
 * /usr/bin/chromium through playwright-core). Open the printed URL, start pr.yml on sim with its
 * scenario, decide its gate, see the run complete. The panel's own browser test
 * (panel/test/panel-browser.test.ts) covers every control against a stand-in server; this one proves
 * the page and the server agree.
 */
// The callbacks given to page.evaluate run in the browser: the DOM's types.
/// <reference lib="dom" />
import type { ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startServe, tempDir } from '../../test/kit/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, pageWithProblems } from '../../test/e2e/support/workbench.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = join(REPO, 'test-results', 'panel');

let scratch: string;
let serve: ChildProcess;
let loginUrl: string;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  scratch = tempDir('serve-panel-');
  const workspace = join(scratch, 'workspace');
  mkdirSync(join(workspace, '.paseo', 'playbooks'), { recursive: true });
  copyFileSync(join(REPO, 'playbooks', 'pr.yml'), join(workspace, '.paseo', 'playbooks', 'pr.yml'));
  const served = await startServe({
    workspace,
    home: join(scratch, 'home'),
    args: ['--scenario', join(REPO, 'docs/examples/pr.scenario.yml')],
    env: process.env,
  });
  serve = served.child;
  loginUrl = served.login;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('serve and its panel in Chromium', () => {
  it('starts pr.yml on sim from the printed URL, decides its gate, and sees the run complete', async () => {
    const { context, page, problems } = await pageWithProblems(browser, { width: 1200, height: 900 });

    await page.goto(loginUrl);
    expect(new URL(page.url()).search).toBe(''); // the token left the address bar (303 to /)
    await page.getByRole('heading', { name: 'Implement, review and land a change' }).waitFor();
    await page.locator('.connection.on').waitFor();

    await page.getByRole('button', { name: 'Start Implement, review and land a change' }).click();
    const form = page.getByRole('form', { name: 'Start Implement, review and land a change' });
    await form.getByLabel('task').fill('Add a --json flag to the CLI');
    await form.getByRole('button', { name: 'Start run' }).click();
    await page.getByRole('tab', { name: /Implement, review and land a change/ }).waitFor();
    // A sim run says it is one: its agents and outputs are made up (serve's run detail carries `backend`).
    await page.locator('.run-header .badge.simulated', { hasText: 'simulated' }).waitFor();

    // The scenario's agents run; the gate waits for a person (serve never decides one itself).
    const ship = page.locator('.node-button[data-step="ship"][data-status="waiting"]');
    await ship.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(SHOTS, 'serve-1-gate.png'), fullPage: true });
    await page.getByLabel('Comment on ship').fill('Ship it after the release notes');
    await page.getByRole('button', { name: 'approve', exact: true }).click();
    await page.locator('.node-button[data-step="ship"][data-status="completed"]').waitFor();
    // The run's badge says so (the run list's status filter also has a "Completed" option, hidden).
    await page.locator('.run-header .badge.completed', { hasText: 'completed' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'serve-2-completed.png'), fullPage: true });
    // A step's sheet lists what happened in it: the run's history for that step.
    await page.locator('.node-button[data-step="implement"]').click();
    const activity = page
      .getByRole('complementary', { name: 'implement' })
      .getByRole('list', { name: 'What happened in implement' });
    await activity.getByText('implement started (attempt 1)').waitFor();
    await activity.getByText(/#1 implement completed with /).waitFor();
    // At 390 px (a phone): the run alone, the step's sheet under the graph, the timeline of its attempts
    // (docs/images/panel-run-390.png is this screenshot).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('table', { name: 'Timeline' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'serve-3-narrow.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(problems).toEqual([]);
    await context.close();
  });
});
