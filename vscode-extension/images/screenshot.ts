/**
 * The README's screenshot: the packaged extension in a real VS Code (code-server, as test/e2e runs it) with a
 * playbook of this repository open, the hover on its one warning, and the playbook graph beside the editor. Run by take-screenshot.mjs; writes images/screenshot.png.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, notReady } from '../../scripts/setup-vscode-e2e.mjs';
import {
  USER_SETTINGS,
  installExtension,
  makeSandbox,
  sandboxEnv,
  startCodeServer,
} from '../../test/e2e/support/code-server.js';
import { CHROMIUM_ARGS, hoverText, openFile } from '../../test/e2e/support/workbench.js';

export async function takeScreenshot(root: string, vsix: string, out: string): Promise<void> {
  const why = notReady();
  if (why) throw new Error(`code-server is not ready: ${why}`);
  const sandbox = makeSandbox(mkdtempSync(join(tmpdir(), 'kairoku-screenshot-')));
  // The hover below its line, where it covers none of the graph beside the editor.
  writeFileSync(
    join(sandbox.userData, 'User', 'settings.json'),
    JSON.stringify({ ...USER_SETTINGS, 'editor.hover.above': false }, null, 2),
  );
  const workspace = join(sandbox.dir, 'workspace');
  mkdirSync(join(workspace, 'playbooks'), { recursive: true });
  // research.yml (parallel steps), with an input nothing reads: a warning (PB900), so the graph still draws.
  const research = readFileSync(join(root, 'playbooks', 'research.yml'), 'utf8');
  if (!/^inputs:\n/m.test(research)) throw new Error('playbooks/research.yml has no inputs: block');
  writeFileSync(
    join(workspace, 'playbooks', 'research.yml'),
    research.replace(/^inputs:\n/m, 'inputs:\n  audience: { type: string, default: team }\n'),
  );
  copyFileSync(
    join(root, 'playbooks', 'research.test.yml'),
    join(workspace, 'playbooks', 'research.test.yml'),
  );
  installExtension(sandbox, vsix);
  const server = await startCodeServer(sandbox, workspace);
  const browser = await chromium.launchPersistentContext(join(sandbox.dir, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    env: sandboxEnv(sandbox),
    viewport: { width: 1600, height: 860 },
    deviceScaleFactor: 1,
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(60_000);
    await page.goto(`${server.url}?folder=${encodeURIComponent(workspace)}`);
    await openFile(page, 'research.yml');
    // Room for the editor and the graph: no side bar; the warning under the hover instead of the Problems panel.
    await page.keyboard.press('Control+B');
    await page.locator('.editor-instance .squiggly-warning').first().waitFor({ timeout: 90_000 });
    // The graph beside the editor, through the command palette as a person would.
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').waitFor();
    await page.keyboard.type('Kairoku Playbooks: Show playbook graph');
    await page
      .locator('.quick-input-widget .monaco-list-row', { hasText: 'Show playbook graph' })
      .first()
      .waitFor();
    await page.keyboard.press('Enter');
    // The webview's content lives in nested iframes; its steps are drawn once it has the playbook.
    const graph = page.frameLocator('iframe.webview').frameLocator('iframe');
    await graph.locator('text=synthesize').first().waitFor({ timeout: 60_000 });
    await page.locator('.tab.active', { hasText: 'research.yml' }).first().click();
    await hoverText(page, 'audience:', 2, 'PB900');
    await page.screenshot({ path: out, animations: 'disabled' });
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop().catch(() => undefined);
    rmSync(sandbox.dir, { recursive: true, force: true });
  }
}
