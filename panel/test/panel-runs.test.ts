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
import { openPanelAt } from './support/panel-page.js';

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

const hash = (page: Page) => page.evaluate(() => location.hash);
const sheet = (page: Page, step: string) => page.getByRole('complementary', { name: step });
const runHeading = (page: Page, title: string) =>
  page.getByRole('heading', { level: 2, name: new RegExp(title) });

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
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);
});
