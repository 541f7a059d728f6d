/** Opening the panel in the test's Chromium, signed in as serve's printed URL does it, and axe on it. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { TOKEN } from './fake-api.js';
import type { FakeApi } from './fake-api.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * A fresh page (a fresh context: its own cookies) signed in, then at `address` (a hash such as
 * `#/runs/run-0001`). Console errors and page errors are collected in `problems`.
 */
export async function openPanelAt(
  browser: Browser,
  fake: FakeApi,
  options: { width?: number; height?: number; address?: string; colorScheme?: 'light' | 'dark' } = {},
): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${fake.url}/?token=${TOKEN}`);
  await page.locator('.connection.on').waitFor();
  if (options.address) {
    await page.goto(`${fake.url}/${options.address}`);
    await page.locator('.connection.on').waitFor();
  }
  return { page, problems };
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function axeProblems(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the page's CSP (no inline script) does not stop it.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            node: Document,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`);
}

/** The page's address: `#/runs/ID`, `#/`. */
export const hash = (page: Page) => page.evaluate(() => location.hash);

/** The open run's heading, by its title. */
export const runHeading = (page: Page, title: string) =>
  page.getByRole('heading', { level: 2, name: new RegExp(title) });

/** The focused element as `tag id text`, for expectations such as /^h2 run-title/. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return `${element?.tagName.toLowerCase()} ${element?.id ?? ''} ${element?.textContent?.trim() ?? ''}`;
  });

/** Advances the fake's run until `step` shows `status` on its node (each step awaited in the page). */
export async function advanceUntil(
  page: Page,
  fake: FakeApi,
  runId: string,
  step: string,
  status: string,
): Promise<void> {
  const shown = page.locator(`.node-button[data-step="${step}"][data-status="${status}"]`);
  for (let i = 0; i < 20 && (await shown.count()) === 0; i++) {
    const version = fake.run(runId)!.version;
    fake.advance(runId);
    await page.waitForFunction(
      ([v]) => document.querySelector('.run-view')?.getAttribute('data-version') === String(v),
      [version + 1],
    );
  }
  await shown.waitFor();
}
