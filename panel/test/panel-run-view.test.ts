/**
 * Issue 24's run view in Chromium against the stand-in serve: the run that stays open after Archive, the
 * step's sheet below the graph when the panel is narrow, the timeline of attempts. Driven by accessible
 * names, at 1280×800 and 390×844.
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

describe('archive', () => {
  it('keeps the run open and selected after Archive, through a reload of the list, until another run opens', async () => {
    const other = fake.addRun({ title: 'Other ended run', status: 'completed' });
    const id = fake.addRun({ title: 'Run to archive', status: 'completed' });
    const { page, problems } = await openPanelAt(browser, fake, { address: `#/runs/${id}` });
    await runHeading(page, 'Run to archive').waitFor();
    await page.getByRole('button', { name: 'Archive run' }).click();
    await page
      .getByRole('dialog', { name: /Archive Run to archive\?/ })
      .getByRole('button', { name: 'Yes, archive it' })
      .click();
    await page.getByRole('button', { name: 'Archive run' }).waitFor({ state: 'detached' });
    expect(fake.run(id)!.item.archived).toBe(true);
    // The run is still the main area at the same address, its entry selected and marked archived.
    await expect(runHeading(page, 'Run to archive').isVisible()).resolves.toBe(true);
    await expect(hash(page)).resolves.toBe(`#/runs/${id}`);
    await expect.poll(() => focused(page)).toMatch(/^h2 run-title/);
    const entry = page.getByRole('tab', { selected: true });
    await expect(entry.getAttribute('id')).resolves.toBe(`tab-${id}`);
    await expect(entry.locator('.tab-status').textContent()).resolves.toBe('completed · archived');
    await expect(page.getByLabel('Show archived runs').isChecked()).resolves.toBe(false);

    // A fresh list from the server (the filter asks for one) leaves it out; the page keeps it while open.
    await page.getByLabel('Status').selectOption('completed');
    await page.getByRole('tab', { name: /Other ended run/ }).waitFor();
    await page.getByLabel('Status').selectOption('all');
    await expect(page.getByRole('tab', { selected: true }).getAttribute('id')).resolves.toBe(`tab-${id}`);

    // Another run opened: the archived one leaves the list.
    await page.locator(`#tab-${other}`).click();
    await runHeading(page, 'Other ended run').waitFor();
    await page.locator(`#tab-${id}`).waitFor({ state: 'detached' });
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('at 390 px the run stays in view after Archive', async () => {
    const id = fake.addRun({ title: 'Narrow archive', status: 'completed' });
    const { page, problems } = await openPanelAt(browser, fake, {
      width: 390,
      height: 844,
      address: `#/runs/${id}`,
    });
    await runHeading(page, 'Narrow archive').waitFor();
    await page.getByRole('button', { name: 'Archive run' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, archive it' }).click();
    await page.getByRole('button', { name: 'Archive run' }).waitFor({ state: 'detached' });
    await expect(runHeading(page, 'Narrow archive').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('tablist', { name: 'Runs' }).isVisible()).resolves.toBe(false);
    await expect(hash(page)).resolves.toBe(`#/runs/${id}`);
    await expect.poll(() => focused(page)).toMatch(/^h2 run-title/);
    await expect(page.locator(`#tab-${id}`).getAttribute('aria-selected')).resolves.toBe('true');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

/** Where the graph and the step's sheet are drawn, in page pixels. */
async function sheetAndGraph(page: Page) {
  return page.evaluate(() => {
    const box = (selector: string) => {
      const r = document.querySelector(selector)!.getBoundingClientRect();
      return { x: r.x, y: r.y + scrollY, width: r.width, height: r.height, top: r.y, bottom: r.bottom };
    };
    return { graph: box('.graph-frame'), sheet: box('.sheet'), heading: box('#sheet-title') };
  });
}

describe('the step’s sheet', () => {
  // 760: a window wider than 700 px whose run, beside the run list, is narrower: the run's width decides.
  for (const [width, height] of [
    [390, 844],
    [700, 800],
    [760, 800],
  ] as const) {
    it(`shows below the graph, as wide as it, at ${width}×${height}`, async () => {
      const id = fake.addRun({ title: `Sheet at ${width}` });
      const { page, problems } = await openPanelAt(browser, fake, {
        width,
        height,
        address: `#/runs/${id}`,
      });
      await runHeading(page, `Sheet at ${width}`).waitFor();
      await page.getByRole('button', { name: /^review agent/ }).click();
      await page.getByRole('complementary', { name: 'review' }).waitFor();
      await expect.poll(() => focused(page)).toMatch(/^h3 sheet-title/);
      const { graph, sheet, heading } = await sheetAndGraph(page);
      expect(sheet.y).toBeGreaterThanOrEqual(graph.y + graph.height);
      expect(Math.abs(sheet.x - graph.x)).toBeLessThan(1);
      expect(Math.abs(sheet.width - graph.width)).toBeLessThan(1);
      expect(graph.width).toBeGreaterThan(300); // the graph keeps the run's width
      // The sheet's heading has the focus and is in view.
      expect(heading.top).toBeGreaterThanOrEqual(0);
      expect(heading.bottom).toBeLessThanOrEqual(height);
      await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(
        width,
      );
      if (width === 390) await page.screenshot({ path: `${SHOTS}24-sheet-390.png` });
      expect(problems).toEqual([]);
      await page.context().close();
    }, 120_000);
  }

  it('shows beside the graph when the run has room (1280×800)', async () => {
    const id = fake.addRun({ title: 'Sheet beside' });
    const { page, problems } = await openPanelAt(browser, fake, { address: `#/runs/${id}/steps/plan` });
    await page.getByRole('complementary', { name: 'plan' }).waitFor();
    const { graph, sheet } = await sheetAndGraph(page);
    expect(sheet.x).toBeGreaterThanOrEqual(graph.x + graph.width);
    expect(Math.abs(sheet.y - graph.y)).toBeLessThan(1);
    expect(graph.width).toBeGreaterThan(400);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});

describe('the timeline', () => {
  it('shows each step’s attempts on one time strip, a loop as the steps again, with names and times in words', async () => {
    const id = fake.addRun({ title: 'Looped run' }); // review → implement on "changes", once
    const { page, problems } = await openPanelAt(browser, fake, { address: `#/runs/${id}` });
    await runHeading(page, 'Looped run').waitFor();
    await advanceUntil(page, fake, id, 'ship', 'waiting');
    const table = page.getByRole('table', { name: 'Timeline' });
    const row = (step: string) =>
      table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: step, exact: true }) });
    // (the timeline follows the graph a frame later)
    await row('ship')
      .getByRole('button', { name: /^ship attempt #1: waiting/ })
      .waitFor();
    const rowHeads = await table.getByRole('rowheader').allTextContents();
    expect(rowHeads).toEqual(['plan', 'implement', 'qa', 'review', 'ship']);

    // The loop: implement, qa and review ran twice; review's first attempt asked for changes.
    const review = row('review').getByRole('button');
    await expect(review.count()).resolves.toBe(2);
    await expect(review.nth(0).getAttribute('aria-label')).resolves.toMatch(
      /^review attempt #1: changes, \d+ s$/,
    );
    await expect(review.nth(1).getAttribute('aria-label')).resolves.toMatch(
      /^review attempt #2: approved, \d+ s$/,
    );
    await expect(review.nth(0).getAttribute('class')).resolves.toBe('bar earlier');
    await expect(review.nth(1).getAttribute('class')).resolves.toBe('bar completed');
    await expect(row('review').locator('.time').textContent()).resolves.toMatch(/^2 attempts · \d+ s$/);
    await expect(row('implement').getByRole('button').count()).resolves.toBe(2);
    await expect(row('qa').getByRole('button').count()).resolves.toBe(2);
    await expect(row('plan').locator('.time').textContent()).resolves.toMatch(/^\d+ s$/);
    await expect(row('ship').getByRole('button').getAttribute('aria-label')).resolves.toMatch(
      /^ship attempt #1: waiting, \d+ s$/,
    );
    await expect(row('ship').getByRole('button').getAttribute('class')).resolves.toBe('bar waiting');
    // Later attempts sit later on the strip.
    const [first, second] = [(await review.nth(0).boundingBox())!, (await review.nth(1).boundingBox())!];
    expect(second.x).toBeGreaterThanOrEqual(first.x);
    expect(await axeProblems(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}24-timeline.png`, fullPage: true });

    // A bar opens that attempt in the step's sheet.
    await review.nth(0).click();
    await page.getByRole('heading', { level: 3, name: 'review · attempt #1' }).waitFor();

    // Narrow: the timeline fits, nothing sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await table.waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(390);
    expect(await axeProblems(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
