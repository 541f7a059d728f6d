/**
 * The panel in a real Chromium (Debian's /usr/bin/chromium, headless, through playwright-core) against a
 * stand-in for `serve` (support/fake-api.ts) that sends the page's CSP, `default-src 'self'`. One browser
 * for the file. Waits are for what a person would see, never fixed sleeps. Screenshots go to
 * test-results/panel/.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/e2e/support/workbench.js';
import { buildPanel } from '../build.mjs';
import { startFakeApi } from './support/fake-api.js';
import type { FakeApi } from './support/fake-api.js';
import { axeProblems, openPanelAt } from './support/panel-page.js';

const SHOTS = fileURLToPath(new URL('../../test-results/panel/', import.meta.url));

let fake: FakeApi;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  await buildPanel();
  fake = await startFakeApi();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
});

/** A fresh page (its own cookies), signed in as `serve`'s printed URL does it (support/panel-page.ts). */
async function openPanel(width = 1200): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPanelAt(browser, fake, { width, height: 900 });
  await opened.page.getByRole('heading', { name: 'Open a pull request' }).waitFor();
  return opened;
}

const node = (page: Page, step: string) => page.locator(`.node:has(> .node-button[data-step="${step}"])`);
const stepIs = async (page: Page, step: string, status: string) =>
  page.locator(`.node-button[data-step="${step}"][data-status="${status}"]`).waitFor();

/** Advances the fake run and waits for the page to show `status` on `step` (it arrives by SSE). */
async function advanceUntil(page: Page, runId: string, step: string, status: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const shown = await page.locator(`.node-button[data-step="${step}"][data-status="${status}"]`).count();
    if (shown > 0) return;
    fake.advance(runId);
    await stepIsSettled(page, runId);
  }
  throw new Error(`${step} never became ${status}`);
}

/** Waits until the page shows the fake run's latest state (its steps' statuses). */
async function stepIsSettled(page: Page, runId: string): Promise<void> {
  const run = fake.run(runId)!;
  for (const [name, step] of run.steps) await stepIs(page, name, step.status);
}

const posts = (path: string) => fake.requests.filter((r) => r === `POST ${path}`).length;

describe('the Playbooks panel in Chromium', () => {
  it('starts a run from the form (after refusing a bad value), follows it live, decides the gate, restarts and archives', async () => {
    const { page, problems } = await openPanel();

    // A playbook with errors cannot start, and says why.
    const broken = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Broken playbook' }) });
    await expect(broken.getByRole('button', { name: 'Start Broken playbook' }).isDisabled()).resolves.toBe(
      true,
    );
    await expect(broken.getByText('Cannot start: It has 1 error').count()).resolves.toBe(1);
    await expect(broken.getByText('PB2001 at 7:12').count()).resolves.toBe(1);

    // The form: defaults filled, required marked, the secret a password field.
    await page.getByRole('button', { name: 'Start Open a pull request' }).click();
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    await expect(form.getByLabel('reviewers').inputValue()).resolves.toBe('1');
    await expect(form.getByLabel('target').inputValue()).resolves.toBe('main');
    await expect(form.getByLabel('task').getAttribute('aria-required')).resolves.toBe('true');
    await expect(form.getByLabel('api_key').getAttribute('type')).resolves.toBe('password');
    await expect(form.locator('textarea#in-playbooks-pr-yml-task').count()).resolves.toBe(1);
    // What a run can cost, before Start: serve's bound of the playbook (issue 26).
    await expect
      .poll(() => form.locator('.run-bound').textContent())
      .toBe('Worst case At most 17 agent turns and 3 decisions by a person; at most 4 h by the timeouts.');

    // A bad value first: the error shows beside its field and nothing starts.
    await form.getByLabel('task').fill('Add a --json flag to the CLI');
    await form.getByLabel('reviewers').fill('lots');
    await form.getByRole('button', { name: 'Start run' }).click();
    await form.getByText('reviewers must be a whole number').waitFor();
    await expect(form.getByLabel('reviewers').getAttribute('aria-invalid')).resolves.toBe('true');
    await form.getByLabel('reviewers').fill('7');
    await form.getByRole('button', { name: 'Start run' }).click();
    await form.getByText('reviewers must be at most 3').waitFor();
    expect(posts('/api/v1/runs')).toBe(0);
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}1-form-error.png`, fullPage: true });

    await form.getByLabel('reviewers').fill('2');
    await form.getByLabel('api_key').fill('s3cret-value');

    // Start options the backend supports: a new worktree, the provider and model of steps that name
    // none (serve's default provider filled in). A provider that is no id is refused in the page; a
    // model the server refuses shows beside its field.
    await expect(form.getByLabel('Provider').inputValue()).resolves.toBe('claude');
    await form.getByLabel('New worktree').check();
    await form.getByLabel('Provider').fill('not an id');
    await form.getByRole('button', { name: 'Start run' }).click();
    await form.getByText('Provider must be a provider id').waitFor();
    await expect(form.getByLabel('Provider').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(posts('/api/v1/runs')).toBe(0);
    await form.getByLabel('Provider').fill('codex');
    await form.getByLabel('Model').fill('no-such-model');
    await form.getByRole('button', { name: 'Start run' }).click();
    await form.getByText('the provider has no model "no-such-model"').waitFor();
    await expect(form.getByLabel('Model').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(posts('/api/v1/runs')).toBe(1);
    // Chromium logs the refused request itself; that is the only console line it may cause.
    expect(problems.splice(0)).toEqual([expect.stringContaining('status of 422')]);
    await form.getByLabel('Model').fill('gpt-5-codex');
    await form.getByRole('button', { name: 'Start run' }).click();
    await page.getByRole('tab', { name: /Open a pull request/ }).waitFor();
    expect(posts('/api/v1/runs')).toBe(2);
    expect(fake.bodies.get('/api/v1/runs')?.at(-1)).toMatchObject({
      options: { worktree: true, provider: 'codex', model: 'gpt-5-codex' },
    });
    const runId = (await page.getByRole('tab', { selected: true }).getAttribute('id'))!.slice('tab-'.length);
    await stepIs(page, 'plan', 'running');
    await expect(page.locator('.node.running').count()).resolves.toBe(1);
    await expect(page.locator('.node.unreached').count()).resolves.toBe(4);

    // A running step can be nudged from its sheet; the run can be paused and resumed.
    await node(page, 'plan')
      .getByRole('button', { name: /^plan agent/ })
      .click();
    const planSheet = page.getByRole('complementary', { name: 'plan' });
    await planSheet.getByLabel('Nudge plan').fill('Keep the plan short.');
    await planSheet.getByRole('button', { name: 'Send nudge' }).click();
    await page.getByRole('status').getByText('Nudged plan.').waitFor();
    expect(fake.bodies.get(`/api/v1/runs/${runId}/steps/plan/nudge`)).toEqual([
      { message: 'Keep the plan short.' },
    ]);
    await planSheet.getByRole('button', { name: 'Close the details of plan' }).click();
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.badge.paused').waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.badge.running').waitFor();

    // The event stream drops (a restarted server): EventSource reconnects and the page catches up.
    fake.dropEventStreams();
    fake.advance(runId);
    await stepIs(page, 'implement', 'running');

    // Progress arrives over SSE: no reload, no polling.
    const gets = fake.requests.filter((r) => r === 'GET /api/v1/runs').length;
    await advanceUntil(page, runId, 'review', 'running');
    await expect(node(page, 'plan').getAttribute('class')).resolves.toContain('completed');
    // review reports "changes": the loop turns back to implement, whose first attempt becomes chip #1.
    await advanceUntil(page, runId, 'implement', 'running');
    await node(page, 'implement').getByRole('button', { name: '#1, earlier attempt of implement' }).waitFor();
    await page.locator('.loop text', { hasText: 'changes 1/3' }).waitFor();
    await page.screenshot({ path: `${SHOTS}2-loop.png`, fullPage: true });
    await advanceUntil(page, runId, 'ship', 'waiting');
    expect(fake.requests.filter((r) => r === 'GET /api/v1/runs').length).toBe(gets);
    await expect(node(page, 'ship').getAttribute('class')).resolves.toContain('waiting');
    await expect(page.getByRole('tab', { name: /1 waiting/ }).count()).resolves.toBe(1);

    // The gate: Reject needs a comment; Approve takes one.
    const gate = page.getByRole('region', { name: 'Ship the pull request?' });
    await gate.getByRole('button', { name: /Reject/ }).click();
    await gate.getByText('Reject needs a comment.').waitFor();
    expect(posts(`/api/v1/runs/${runId}/gates/ship`)).toBe(0);
    await gate.getByLabel('Comment on ship').fill('Ship it after the release branch is cut.');
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}3-gate.png`, fullPage: true });
    await gate.getByRole('button', { name: 'Approve' }).click();
    await stepIs(page, 'ship', 'completed');
    await page.locator('.badge.completed').waitFor();
    await page.locator('.end.completed').getByText('https://example.invalid/pull/1').waitFor();
    expect(fake.run(runId)!.steps.get('ship')!.attempts[0]!.summary).toBe(
      'Ship it after the release branch is cut.',
    );

    // After the run: the manual after-task starts from its button.
    await page.getByRole('button', { name: 'Start summarize' }).click();
    await page.locator('.after-task.running').waitFor();
    fake.advance(runId);
    await page.locator('.after-task.completed').waitFor();

    // The step's sheet, then Restart run from here (offered only where the API allows it).
    await node(page, 'qa')
      .getByRole('button', { name: /^qa check/ })
      .click();
    const sheet = page.getByRole('complementary', { name: 'qa' });
    await sheet.getByRole('heading', { name: 'Brief' }).waitFor();
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}4-sheet.png`, fullPage: true });
    await sheet.getByRole('button', { name: 'Restart run from here' }).click();
    await stepIs(page, 'qa', 'running');
    await stepIs(page, 'implement', 'completed');
    await expect(node(page, 'review').getAttribute('class')).resolves.toContain('unreached');
    await advanceUntil(page, runId, 'ship', 'waiting');
    await page
      .getByRole('region', { name: 'Ship the pull request?' })
      .getByRole('button', { name: 'Approve' })
      .click();
    await page.locator('.badge.completed').waitFor();

    // Archive: the run stays open and listed (marked archived) while it is open; Show archived lists it after.
    await page.getByRole('button', { name: 'Archive run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, archive it' }).click();
    await page.getByRole('tab', { name: /archived/, selected: true }).waitFor();
    await page.getByLabel('Show archived runs').check();
    await page.getByRole('tab', { name: /archived/ }).waitFor();
    await page.screenshot({ path: `${SHOTS}5-archived.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('works with the keyboard alone', async () => {
    const { page, problems } = await openPanel();
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        return `${element?.tagName.toLowerCase()} ${element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? ''} ${element?.id ?? ''}`;
      });
    /** Tab (or Shift+Tab) until the focused element matches, as a keyboard user moves. */
    const tabTo = async (pattern: RegExp, back = false) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
        if (pattern.test(await focused())) return;
      }
      throw new Error(`never reached ${pattern} (at ${await focused()})`);
    };

    await tabTo(/Start Open a pull request/);
    await page.keyboard.press('Enter');
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/in-playbooks-pr-yml-task/); // the form took the focus
    await page.keyboard.type('Keyboard only');
    await tabTo(/in-playbooks-pr-yml-reviewers/);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('x');
    await tabTo(/Start run/);
    await page.keyboard.press('Enter');
    await page.getByText('reviewers must be a whole number').waitFor();
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/in-playbooks-pr-yml-reviewers/); // the focus goes to the first error
    await page.keyboard.press('Control+A');
    await page.keyboard.type('1');
    await page.keyboard.press('Shift+Tab'); // back on strict (a checkbox)
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/in-playbooks-pr-yml-strict/);
    await page.keyboard.press('Space');
    await tabTo(/Start run/);
    await page.keyboard.press('Enter');
    const tab = page.getByRole('tab', { selected: true });
    await tab.waitFor();
    const runId = (await tab.getAttribute('id'))!.slice('tab-'.length);
    expect(fake.run(runId)!.inputs).toMatchObject({ task: 'Keyboard only', strict: true, reviewers: 1 });

    await advanceUntil(page, runId, 'ship', 'waiting');
    await tabTo(/gate-ship-comment/);
    await page.keyboard.type('Approved from the keyboard');
    await tabTo(/^button Approve/);
    await page.keyboard.press('Enter');
    await page.locator('.badge.completed').waitFor();

    // Into the graph: one stop, then the arrow keys between steps; Enter opens the sheet.
    await tabTo(/^button plan agent/);
    // One key at a time: each moves the focus after a render, which a second key must not outrun.
    await page.keyboard.press('ArrowRight');
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^button implement agent/);
    await page.keyboard.press('ArrowRight');
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^button qa check/);
    await page.keyboard.press('Enter');
    await page.getByRole('complementary', { name: 'qa' }).waitFor();
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^h3 /); // the sheet's heading
    await tabTo(/Restart run from here/);
    await page.keyboard.press('Enter');
    await stepIs(page, 'qa', 'running');
    await page.keyboard.press('Escape'); // Escape closes the sheet and returns to the step
    await page.getByRole('complementary', { name: 'qa' }).waitFor({ state: 'detached' });
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^button qa check/);
    await page.keyboard.press('Shift+Tab');
    await tabTo(/^button Cancel run/, true);
    await page.keyboard.press('Enter');
    // The confirmation has the focus on No; Tab to Yes.
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^button No, keep it running/);
    await page.keyboard.press('Tab');
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^button Yes, cancel the run/);
    await page.keyboard.press('Enter');
    await page.locator('.badge.unreached', { hasText: /cancel/ }).waitFor();
    await tabTo(/^button Archive run/);
    await page.keyboard.press('Enter');
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^button No, keep it/);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    // The archived run stays open and selected, and the focus on its heading.
    await page.getByRole('tab', { name: /archived/, selected: true }).waitFor();
    await expect.poll(focused, { timeout: 15_000 }).toMatch(/^h2 .* run-title$/);
    await page.screenshot({ path: `${SHOTS}6-keyboard.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('sizes nodes 132 to 240 px with the panel, pulses unless motion is reduced, keeps a completed run green until opened', async () => {
    const other = fake.addRun({ title: 'Another run' });
    const { page, problems } = await openPanel(1400);
    await page.getByRole('tab', { name: /Another run/ }).click();
    const width = async () => (await node(page, 'plan').boundingBox())!.width;
    // (polled: the graph is drawn again once its frame's width is measured)
    await expect.poll(width).toBe(240);
    // In between, the node takes what the panel has beside the loop lane (68 px of padding, gap and lane).
    await page.setViewportSize({ width: 300, height: 800 });
    await page.waitForFunction(() => {
      const frame = document.querySelector<HTMLElement>('.graph-frame')!.clientWidth;
      const node = document.querySelector<HTMLElement>('.node')!.offsetWidth;
      return node === frame - 68 && node > 132 && node < 240;
    });
    await page.setViewportSize({ width: 180, height: 800 });
    await page.locator('.graph-frame.scrolls').waitFor(); // sideways scrolling only when 132 px do not fit
    await expect.poll(width).toBe(132);
    await page.setViewportSize({ width: 1000, height: 800 });
    await page.locator('.graph-frame.scrolls').waitFor({ state: 'detached' });

    const animation = () =>
      page
        .locator('.node.running .node-button')
        .first()
        .evaluate((e) => getComputedStyle(e).animationName);
    expect(await animation()).toBe('pulse');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect.poll(animation).toBe('none');

    // Another run completes while this one is open: its dot stays green until its tab is opened.
    const third = fake.addRun({
      title: 'Quick run',
      nodes: [{ name: 'only', kind: 'check', needs: [] }],
      loops: [],
    });
    fake.advance(third);
    const dot = page.locator(`#tab-${third} .dot`);
    await page.locator(`#tab-${third} .dot.completed.unseen`).waitFor();
    await page.screenshot({ path: `${SHOTS}7-unseen.png` });
    await page.locator(`#tab-${third}`).click();
    await page.waitForFunction(
      (id) => !document.querySelector(`#tab-${id} .dot`)!.classList.contains('unseen'),
      third,
    );
    expect(await dot.getAttribute('class')).toContain('completed');
    expect(fake.run(third)!.item.seen).toBe(true);
    expect(fake.run(other)).toBeDefined();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('draws only the rows near the window of a big graph, and the arrow keys still reach every step', async () => {
    const nodes = Array.from({ length: 400 }, (_, i) => ({
      name: `s${i}`,
      kind: 'agent' as const,
      needs: i === 0 ? [] : [`s${i - 1}`],
    }));
    const big = fake.addRun({ title: 'Four hundred steps', nodes, loops: [] });
    const { page, problems } = await openPanel();
    await page.locator(`#tab-${big}`).click();
    await stepIs(page, 's0', 'running');
    const drawn = await page.locator('.node').count();
    expect(drawn).toBeGreaterThan(5);
    expect(drawn).toBeLessThan(100);
    await page.locator('.node-button[data-step="s0"]').focus();
    await page.keyboard.press('End');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-step') === 's399');
    await page.keyboard.press('ArrowUp');
    await page.waitForFunction(() => document.activeElement?.getAttribute('data-step') === 's398');
    await page.keyboard.press('Enter');
    await page.getByRole('complementary', { name: 's398' }).waitFor();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
