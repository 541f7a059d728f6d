/**
 * Issue 24 in Chromium against the stand-in serve: every run at an address, what needs the person
 * first, the run list, confirmations, time. Driven by accessible names.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../test/e2e/support/workbench.js';
import { buildPanel } from '../build.mjs';
import { startFakeApi } from './support/fake-api.js';
import type { FakeApi } from './support/fake-api.js';
import { advanceUntil, axeProblems, focused, hash, openPanelAt, runHeading } from './support/panel-page.js';

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

const sheet = (page: Page, step: string) => page.getByRole('complementary', { name: step });

describe('every run addressable', () => {
  it('opens a run and its step sheet from the address, keeps them on reload, and Back/Forward move between them', async () => {
    const first = fake.addRun({ title: 'Addressed run' });
    const second = fake.addRun({ title: 'Second addressed run' });
    const { page, problems } = await openPanelAt(browser, fake, { address: `#/runs/${first}/steps/plan` });
    await runHeading(page, 'Addressed run').waitFor();
    await sheet(page, 'plan').waitFor();
    await expect(page.getByRole('tab', { selected: true }).getAttribute('id')).resolves.toBe(`tab-${first}`);

    await page.reload();
    await sheet(page, 'plan').waitFor();
    await expect(page.getByRole('tab', { selected: true }).getAttribute('id')).resolves.toBe(`tab-${first}`);

    // Closing the sheet and opening another run write the address.
    await sheet(page, 'plan').getByRole('button', { name: 'Close the details of plan' }).click();
    await expect.poll(() => hash(page)).toBe(`#/runs/${first}`);
    await page.locator(`#tab-${second}`).click();
    await runHeading(page, 'Second addressed run').waitFor();
    await expect.poll(() => hash(page)).toBe(`#/runs/${second}`);

    // Back: the first run, then its sheet again; Forward: the second run.
    await page.goBack();
    await runHeading(page, 'Addressed run').waitFor();
    await expect(page.getByRole('tab', { selected: true }).getAttribute('id')).resolves.toBe(`tab-${first}`);
    await page.goBack();
    await sheet(page, 'plan').waitFor();
    await page.goForward();
    await page.goForward();
    await runHeading(page, 'Second addressed run').waitFor();

    // The arrow keys in the run list move the address without piling up history entries.
    const entries = await page.evaluate(() => history.length);
    await page.locator(`#tab-${second}`).focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => hash(page)).toBe(`#/runs/${first}`);
    await runHeading(page, 'Addressed run').waitFor();
    await expect(page.evaluate(() => history.length)).resolves.toBe(entries);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('what needs the person first', () => {
  it('after Start the new run is selected and its gate takes the focus when it opens', async () => {
    const { page, problems } = await openPanelAt(browser, fake);
    await page.getByRole('button', { name: 'Start Open a pull request' }).click();
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    await form.getByLabel('task').fill('Gate first');
    await form.getByRole('button', { name: 'Start run' }).click();
    await runHeading(page, 'Open a pull request').waitFor();
    const runId = (await page.getByRole('tab', { selected: true }).getAttribute('id'))!.slice('tab-'.length);
    await expect.poll(() => focused(page)).toMatch(/^h2 run-title/);
    await advanceUntil(page, fake, runId, 'ship', 'waiting');
    await expect.poll(() => focused(page)).toMatch(/^textarea gate-ship-comment/);
    await expect.poll(() => page.title()).toBe('(1) Playbooks');
    // The gate is on the first screen, above the graph.
    const gateBox = await page.getByRole('region', { name: 'Ship the pull request?' }).boundingBox();
    expect(gateBox!.y).toBeLessThan(800);
    await page.screenshot({ path: `${SHOTS}24-start-gate.png` });
    await page.getByRole('button', { name: 'Approve', exact: true }).click(); // (a timeline bar says "approved")
    await expect.poll(() => page.title()).toBe('Playbooks');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('opening the page while a run waits selects it, pins it first and focuses its gate', async () => {
    const waiting = fake.addRun({
      title: 'Waiting run',
      nodes: [{ name: 'ship', kind: 'gate', needs: [] }],
      loops: [],
    });
    fake.addRun({ title: 'Newer busy run' }); // newer, but not waiting: listed after
    const { page, problems } = await openPanelAt(browser, fake);
    await runHeading(page, 'Waiting run').waitFor();
    await expect(page.getByRole('tab', { selected: true }).getAttribute('id')).resolves.toBe(
      `tab-${waiting}`,
    );
    await expect(page.getByRole('tab').first().getAttribute('id')).resolves.toBe(`tab-${waiting}`);
    await expect.poll(() => focused(page)).toMatch(/^textarea gate-ship-comment/);
    await expect.poll(() => hash(page)).toBe(`#/runs/${waiting}`);
    await expect.poll(() => page.title()).toBe('(1) Playbooks');

    // A start form opened while the list is still on its way stays: the waiting run does not take over.
    let release = () => {};
    const held = new Promise<void>((done) => (release = done));
    await page.route(/\/api\/v1\/runs\?/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${fake.url}/`);
    await page.getByRole('button', { name: 'Start Open a pull request' }).click();
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    await form.waitFor();
    release();
    await page.getByRole('tab', { name: /Waiting run/ }).waitFor();
    await expect.poll(() => page.title()).toBe('(1) Playbooks');
    expect(await form.isVisible()).toBe(true);
    expect(['', '#/']).toContain(await hash(page)); // no run opened
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('the layout', () => {
  it('lists runs as the navigation with id, times and status; filters them; keeps playbooks compact and searchable', async () => {
    const done = fake.addRun({
      title: 'Finished run',
      nodes: [{ name: 'only', kind: 'check', needs: [] }],
      loops: [],
    });
    fake.advance(done);
    const { page, problems } = await openPanelAt(browser, fake, { address: `#/runs/${done}` });
    await runHeading(page, 'Finished run').waitFor();
    const entry = page.getByRole('tab', { name: /Finished run/ });
    await expect(entry.textContent()).resolves.toMatch(
      new RegExp(`✓Finished runcompleted${done} · started .+ ago · \\d+ (s|min|h|d)$`),
    );
    const started = entry.locator('time');
    await expect(started.getAttribute('title')).resolves.toBe(
      await page.evaluate((iso) => new Date(iso).toLocaleString(), fake.run(done)!.item.startedAt),
    );

    // The status filter: only the completed runs, then none that fail.
    const list = page.getByRole('tablist', { name: 'Runs' });
    await page.getByLabel('Status').selectOption('completed');
    await expect.poll(() => list.getByRole('tab').filter({ hasNotText: 'completed' }).count()).toBe(0);
    await list.getByRole('tab', { name: /Finished run/ }).waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No run has that status.').waitFor();
    await page.getByLabel('Status').selectOption('all');

    // The playbooks: compact rows, searchable, their problems one click away.
    const broken = page
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Broken playbook' }) });
    await expect(broken.getByText('PB2001 at 7:12').isVisible()).resolves.toBe(false);
    await broken.getByText('1 problem (1 error)').click();
    await expect(broken.getByText('PB2001 at 7:12').isVisible()).resolves.toBe(true);
    await page.getByLabel('Search playbooks').fill('pull');
    await broken.waitFor({ state: 'detached' });
    await page.getByLabel('Search playbooks').fill('');
    // The run is the main area, beside the list, on the first screen.
    const runBox = (await page.locator('#run-panel').boundingBox())!;
    const listBox = (await list.boundingBox())!;
    expect(runBox.x).toBeGreaterThan(listBox.x + listBox.width - 1);
    expect(runBox.y).toBeLessThan(200);
    await page.screenshot({ path: `${SHOTS}24-layout-1280.png` });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('at 390 px the run list and the run are two views', async () => {
    // A run waits (the earlier test's): the page opens on it, the run view alone.
    const { page, problems } = await openPanelAt(browser, fake, { width: 390, height: 844 });
    const list = page.getByRole('tablist', { name: 'Runs' });
    await runHeading(page, 'Waiting run').waitFor();
    await expect(list.isVisible()).resolves.toBe(false);
    await page.screenshot({ path: `${SHOTS}24-gate-390.png` });
    await page.getByRole('button', { name: '← All runs' }).click();
    await list.waitFor();
    await expect.poll(() => hash(page)).toBe('#/');
    await page.screenshot({ path: `${SHOTS}24-list-390.png` });
    await list.getByRole('tab', { name: /Finished run/ }).click();
    await runHeading(page, 'Finished run').waitFor();
    await expect(list.isVisible()).resolves.toBe(false);
    await page.screenshot({ path: `${SHOTS}24-run-390.png` });
    await page.goBack(); // Back returns to the list
    await list.waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390); // nothing sideways
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('safety and truth', () => {
  it('asks before Cancel, refuses a blank required input, says why an after-task will not run, tells canceled from completed', async () => {
    const { page, problems } = await openPanelAt(browser, fake, { address: '#/' });
    // A required input of spaces alone is refused beside its field; nothing is sent.
    const before = fake.requests.filter((r) => r === 'POST /api/v1/runs').length;
    await page.getByRole('button', { name: 'Start Open a pull request' }).click();
    const form = page.getByRole('form', { name: 'Start Open a pull request' });
    await form.getByLabel('task').fill('   ');
    await form.getByRole('button', { name: 'Start run' }).click();
    await form.getByText('task is required: spaces alone are not a value').waitFor();
    expect(fake.requests.filter((r) => r === 'POST /api/v1/runs').length).toBe(before);
    await form.getByRole('button', { name: 'Close form' }).click();

    const id = fake.addRun({ title: 'Run to cancel' });
    await page.getByRole('tab', { name: /Run to cancel/ }).click();
    await runHeading(page, 'Run to cancel').waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    const dialog = page.getByRole('dialog', { name: /Cancel Run to cancel\?/ });
    await dialog.waitFor();
    await page.screenshot({ path: `${SHOTS}24-confirm-cancel.png` });
    await dialog.getByRole('button', { name: 'No, keep it running' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(fake.run(id)!.item.status).toBe('running');
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await dialog.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await page.locator('.after-task').getByText('not run: the run was canceled').waitFor();

    // Canceled and a seen completed run differ by icon and words, not by colour alone.
    const canceled = page.getByRole('tab', { name: /Run to cancel/ });
    await expect(canceled.locator('.dot').textContent()).resolves.toBe('⊘');
    await expect(canceled.locator('.tab-status').textContent()).resolves.toBe('canceled');
    const completed = page.getByRole('tab', { name: /Finished run/ });
    await expect(completed.locator('.dot').textContent()).resolves.toBe('✓');
    await expect(completed.locator('.tab-status').textContent()).resolves.toBe('completed');

    // Archive asks too; an archived run opened by its address shows the archived runs with it.
    await page.getByRole('button', { name: 'Archive run' }).click();
    await page
      .getByRole('dialog', { name: /Archive Run to cancel\?/ })
      .getByRole('button', { name: 'Yes, archive it' })
      .click();
    await page.getByRole('tab', { name: /Run to cancel.*archived/, selected: true }).waitFor();
    await page.reload();
    await runHeading(page, 'Run to cancel').waitFor();
    await page.getByRole('tab', { name: /Run to cancel.*archived/ }).waitFor();
    await expect(page.getByLabel('Show archived runs').isChecked()).resolves.toBe(true);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('time', () => {
  it('says while serve makes the manager agent of a run started on a new agent, and who manages it then', async () => {
    const making = fake.addRun({
      title: 'Managed run',
      manager: { name: 'kairoku-playbook serve, making a Paseo manager agent', making: true },
    });
    const { page } = await openPanelAt(browser, fake, { address: `#/runs/${making}` });
    await runHeading(page, 'Managed run').waitFor();
    await expect(
      page.getByRole('status').filter({ hasText: 'making the manager agent…' }).count(),
    ).resolves.toBe(1);
    const managed = fake.addRun({
      title: 'Run of a manager',
      manager: { name: 'kairoku-playbook serve (a new agent), Paseo agent a-1' },
    });
    await page.locator(`#tab-${managed}`).click();
    await runHeading(page, 'Run of a manager').waitFor();
    await page.getByText('managed by kairoku-playbook serve (a new agent), Paseo agent a-1').waitFor();
    await page.close();
  });

  it('shows each step’s duration on its node and in its sheet, and the run’s elapsed time, ticking while it runs', async () => {
    const id = fake.addRun({ title: 'Timed run' });
    const { page, problems } = await openPanelAt(browser, fake, { address: `#/runs/${id}` });
    await runHeading(page, 'Timed run').waitFor();
    const plan = page.locator('.node-button[data-step="plan"]');
    const first = await plan.locator('.detail').textContent();
    expect(first).toMatch(/^agent · running\s·\s\d+ s$/);
    await expect.poll(() => plan.locator('.detail').textContent(), { timeout: 5000 }).not.toBe(first);
    await expect(page.locator('.run-facts .elapsed').textContent()).resolves.toMatch(/running for \d/);

    fake.advance(id); // plan reports: its time stops
    await page.locator('.node-button[data-step="plan"][data-status="completed"]').waitFor();
    await expect(plan.locator('.detail').textContent()).resolves.toMatch(/^agent · completed\s·\s\d+ s$/);
    await plan.click();
    const sheet = page.getByRole('complementary', { name: 'plan' });
    await expect(sheet.locator('.state').textContent()).resolves.toMatch(/completed · done · took \d+ s$/);
    await expect(sheet.locator('.attempts li').first().textContent()).resolves.toMatch(
      /^#1 done: .* · \d+ s$/,
    );
    await expect(page.locator('.run-facts time').getAttribute('title')).resolves.toBeTruthy();
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('themes', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has no serious axe finding in the ${colorScheme} theme: list, run with a gate, confirmation, narrow`, async () => {
      const waiting = fake.addRun({
        title: `Themed ${colorScheme} run`,
        nodes: [{ name: 'ship', kind: 'gate', needs: [] }],
        loops: [],
      });
      const { page, problems } = await openPanelAt(browser, fake, {
        colorScheme,
        address: `#/runs/${waiting}`,
      });
      await runHeading(page, `Themed ${colorScheme} run`).waitFor();
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe(colorScheme === 'dark' ? 'rgb(13, 17, 23)' : 'rgb(255, 255, 255)');
      expect(await axeProblems(page)).toEqual([]);
      await page.getByRole('button', { name: 'Cancel run' }).click();
      await page.getByRole('dialog').waitFor();
      expect(await axeProblems(page)).toEqual([]);
      await page.screenshot({ path: `${SHOTS}24-theme-${colorScheme}.png` });
      await page.getByRole('button', { name: 'No, keep it running' }).click();
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: '← All runs' }).click();
      await page.getByRole('tablist', { name: 'Runs' }).waitFor();
      expect(await axeProblems(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    }, 120_000);
  }
});

describe('a long run list', () => {
  it('shows the first 50 runs and a "More runs" button that brings the next ones', async () => {
    for (let i = 0; i < 55; i++) fake.addRun({ title: `Old run ${i}`, status: 'completed' });
    const { page, problems } = await openPanelAt(browser, fake);
    const tabs = page.getByRole('tablist', { name: 'Runs' }).getByRole('tab');
    await expect.poll(() => tabs.count()).toBe(50);
    await page.getByRole('button', { name: 'More runs' }).click();
    await expect.poll(() => tabs.count()).toBeGreaterThan(55);
    await page.getByRole('button', { name: 'More runs' }).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
