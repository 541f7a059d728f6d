/**
 * Reading and driving VS Code's workbench in the browser, through what a person sees: the Problems panel's
 * rows, the editor's rendered lines, the hover and the suggest widget. Every wait is for something to appear,
 * never a fixed sleep.
 */
// The callbacks given to page.evaluate run in the browser: the DOM's types.
/// <reference lib="dom" />
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** One row of the Problems panel, or one diagnostic of `check --format json`, in the same shape. */
export interface Problem {
  severity: string;
  code: string;
  message: string;
  source: string;
  line: number;
  column: number;
}

export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => a.line - b.line || a.column - b.column || a.code.localeCompare(b.code));
}

/** Chromium as the machine runs it: headless, no sandbox (root), no traffic of its own, nothing but 127.0.0.1. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

/** Debian's Chromium (the `chromium` package), headless, with CHROMIUM_ARGS. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}

/** A new page in a context of its own, collecting its console errors and page errors (a CSP refusal is one). */
export async function pageWithProblems(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { context, page, problems };
}

/**
 * Waits for the workbench, then opens a file of the folder with Quick Open. A file written after
 * the workbench started is opened by its absolute path (`typed`): Quick Open answers an existing
 * absolute path at once, while its file search may not list a new file until the watcher has
 * seen it (a clean-clone CI run timed out waiting for it under load).
 */
export async function openFile(page: Page, name: string, typed: string = name): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  // The explorer shows the folder once the workbench has restored it.
  await page.locator('.explorer-folders-view').waitFor({ timeout: 90_000 });
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').waitFor();
  await page.keyboard.type(typed);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor();
  await page.locator('.editor-instance .monaco-editor .view-lines').waitFor();
}

/** Opens the Problems panel (View: Problems, Ctrl+Shift+M). */
export async function showProblems(page: Page): Promise<void> {
  await page.keyboard.press('Control+Shift+M');
  await page.locator('.markers-panel').waitFor();
}

/** The rows of the Problems panel that are diagnostics (not files, not related information). */
export async function readProblems(page: Page): Promise<Problem[]> {
  const rows = await page.locator('.markers-panel .monaco-list-row').evaluateAll((elements) =>
    elements
      .filter((row) => row.querySelector('.marker-code'))
      .map((row) => {
        const icon = row.querySelector('.marker-icon');
        const severity = ['error', 'warning', 'info'].find((s) => icon?.classList.contains(s)) ?? '?';
        const text = (selector: string) => row.querySelector(selector)?.textContent ?? '';
        return {
          severity,
          code: text('.marker-code'),
          message: text('.marker-message'),
          source: text('.marker-source'),
          position: text('.marker-line'),
        };
      }),
  );
  return sortProblems(
    rows.map(({ position, ...row }) => {
      const match = /\[Ln (\d+), Col (\d+)\]/.exec(position);
      return { ...row, line: Number(match?.[1] ?? 0), column: Number(match?.[2] ?? 0) };
    }),
  );
}

/** The text of the first rendered line of the active editor that contains `needle`. */
export async function lineWith(page: Page, needle: string): Promise<string | undefined> {
  const lines = await page
    .locator('.editor-instance .monaco-editor .view-lines .view-line')
    .evaluateAll((elements) => elements.map((line) => (line.textContent ?? '').replace(/\u00a0/g, ' ')));
  return lines.find((line) => line.includes(needle));
}

/** The centre, on screen, of the character `index` of the first occurrence of `needle` in the active editor. */
export async function pointAt(page: Page, needle: string, index = 0): Promise<{ x: number; y: number }> {
  const point = await page.evaluate(
    ([needle, index]) => {
      const lines = document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line');
      for (const line of Array.from(lines)) {
        const at = (line.textContent ?? '').replace(/\u00a0/g, ' ').indexOf(needle);
        if (at < 0) continue;
        let offset = at + index;
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const length = (node as Text).length;
          if (offset < length) {
            const range = document.createRange();
            range.setStart(node, offset);
            range.setEnd(node, offset + 1);
            const box = range.getBoundingClientRect();
            return { x: box.left + box.width / 2, y: box.top + box.height / 2 };
          }
          offset -= length;
        }
      }
      return null;
    },
    [needle, index] as const,
  );
  if (!point) throw new Error(`"${needle}" is not on screen in the editor`);
  return point;
}

/** Moves the mouse over character `index` of `needle` and returns the text of the hover that shows `expected`. */
export async function hoverText(
  page: Page,
  needle: string,
  index: number,
  expected: string,
): Promise<string> {
  const hover = page.locator('.monaco-hover', { hasText: expected }).filter({ visible: true });
  // The editor asks for a hover once per mouse move: an answer given while the server was still busy
  // (empty) shows nothing until the mouse moves again, as a person would move it.
  const deadline = Date.now() + 30_000;
  for (;;) {
    await page.mouse.move(1, 1);
    await page.keyboard.press('Escape');
    const point = await pointAt(page, needle, index);
    await page.mouse.move(point.x, point.y);
    try {
      await hover.first().waitFor({ timeout: 5_000 });
      return (await hover.first().innerText()).trim();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
}

/** The visible suggest widget and its focused row. */
export function suggestWidget(page: Page) {
  const widget = page.locator('.editor-widget.suggest-widget.visible');
  return { widget, focused: widget.locator('.monaco-list-row.focused') };
}

/** Runs a command of the palette (Ctrl+Shift+P) by its title. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('Control+Shift+P');
  await page.locator('.quick-input-widget input').waitFor();
  await page.keyboard.type(title);
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/** The texts of the notifications on screen and of the status bar: what a person sees when nothing happens. */
export async function whatIsShown(page: Page): Promise<string> {
  const texts = (selector: string) =>
    page
      .locator(selector)
      .evaluateAll((elements) =>
        elements.map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim()).filter(Boolean),
      );
  const notifications = await texts('.notification-toast .notification-list-item-message');
  const status = await texts('.statusbar-item');
  return `notifications: ${JSON.stringify(notifications)}; status bar: ${JSON.stringify(status)}`;
}

/**
 * Waits until the active editor's line with `needle` reads `expected`, as a person watches the editor after a
 * command; fails with the line it last saw and what the window showed (notifications, status bar).
 */
export async function waitForEditorLine(
  page: Page,
  needle: string,
  expected: string,
  timeout: number,
): Promise<void> {
  const deadline = Date.now() + timeout;
  let seen: string | undefined;
  for (;;) {
    seen = await lineWith(page, needle);
    if (seen === expected) return;
    if (Date.now() > deadline) break;
    await page.waitForTimeout(100);
  }
  throw new Error(
    `the editor's line with ${JSON.stringify(needle)} did not become ${JSON.stringify(expected)} within ${timeout} ms: it reads ${JSON.stringify(seen)}; ${await whatIsShown(page)}`,
  );
}

/**
 * Saves the active editor with Ctrl+S and waits for its tab to lose the unsaved-changes mark, as a person
 * watches it; fails saying the save did not happen (not that the file on disk differs).
 */
export async function saveActiveEditor(page: Page): Promise<void> {
  const unsaved = page.locator('.tab.active.dirty');
  await unsaved.waitFor({ timeout: 30_000 }).catch(async () => {
    throw new Error(`the active editor has no unsaved changes to save; ${await whatIsShown(page)}`);
  });
  await page.keyboard.press('Control+S');
  try {
    await unsaved.waitFor({ state: 'detached', timeout: 30_000 });
  } catch {
    throw new Error(`Ctrl+S left the active editor with unsaved changes; ${await whatIsShown(page)}`);
  }
}
