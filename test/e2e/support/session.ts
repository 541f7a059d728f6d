/**
 * The set-up every end-to-end file shares: the .vsix built from the current sources and installed in a
 * sandbox (support/code-server.ts) whose workspace the file fills, code-server started on it, and Chromium
 * (playwright-core) showing it. Screenshots and code-server's log go to the file's folder of artefacts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { expect, onTestFailed } from 'vitest';
import { CHROMIUM, notReady } from '../../../scripts/setup-vscode-e2e.mjs';
import { installExtension, makeSandbox, sandboxEnv, startCodeServer } from './code-server.js';
import type { CodeServer, Sandbox } from './code-server.js';
import { CHROMIUM_ARGS } from './workbench.js';
import { CLI } from '../../kit/cli.js';
import { tempDir } from '../../kit/temp.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BUILD_EXTENSION = join(ROOT, 'vscode-extension', 'build.mjs');
const VSIX = join(ROOT, 'vscode-extension', 'dist', 'kairoku-playbook.vsix');

export interface Session {
  sandbox: Sandbox;
  /** the folder code-server opened: `sandbox.dir/workspace`, with a `playbooks/` folder */
  workspace: string;
  server: CodeServer;
  browser: BrowserContext;
  page: Page;
  /** test-results/<name>/ */
  artefacts: string;
  screenshot(name: string): Promise<void>;
  /** Keeps a screenshot, `failed-<name>.png`, when the running test fails. */
  keepFailure(name: string): void;
  /** Keeps code-server's log, then stops Chromium and code-server and removes the sandbox. */
  close(): Promise<void>;
}

/**
 * A session named `name` (its artefacts in test-results/<name>/): `fill` writes the workspace's files
 * before code-server starts, `ready` runs once the page is loaded. On any failure everything started
 * is stopped, code-server's log kept, and the error thrown.
 */
export async function openSession(
  name: string,
  fill: (workspace: string) => void,
  ready: (page: Page) => Promise<void>,
): Promise<Session> {
  const why = notReady();
  if (why) throw new Error(`the VS Code end-to-end test cannot run: ${why}`);
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
  const artefacts = join(ROOT, 'test-results', name);
  rmSync(artefacts, { recursive: true, force: true });
  mkdirSync(artefacts, { recursive: true });
  const parts: { sandbox?: Sandbox; server?: CodeServer; browser?: BrowserContext } = {};
  const close = async (): Promise<void> => {
    const { sandbox, server, browser } = parts;
    if (server) writeFileSync(join(artefacts, 'code-server.log'), server.log());
    const errors: unknown[] = [];
    await browser?.close().catch((error: unknown) => errors.push(error));
    await server?.stop().catch((error: unknown) => errors.push(error));
    if (sandbox) rmSync(sandbox.dir, { recursive: true, force: true });
    delete parts.browser;
    delete parts.server;
    delete parts.sandbox;
    if (errors.length > 0) throw errors[0];
  };
  try {
    // The .vsix from the current sources (a few seconds).
    execFileSync(process.execPath, [BUILD_EXTENSION, '--package'], { stdio: 'pipe' });

    const sandbox = (parts.sandbox = makeSandbox(tempDir(`kairoku-${name}-`)));
    const workspace = join(sandbox.dir, 'workspace');
    mkdirSync(join(workspace, 'playbooks'), { recursive: true });
    fill(workspace);

    expect(installExtension(sandbox, VSIX)).toMatch(/^kairoku\.kairoku-playbook-vscode@\d+\.\d+\.\d+$/m);
    const server = (parts.server = await startCodeServer(sandbox, workspace));

    const browser = (parts.browser = await chromium.launchPersistentContext(
      join(sandbox.dir, 'chromium-profile'),
      {
        executablePath: CHROMIUM,
        headless: true,
        args: CHROMIUM_ARGS,
        env: sandboxEnv(sandbox),
        viewport: { width: 1400, height: 900 },
      },
    ));
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(60_000);
    await page.goto(`${server.url}?folder=${encodeURIComponent(workspace)}`);
    await ready(page);
    return {
      sandbox,
      workspace,
      server,
      browser,
      page,
      artefacts,
      // Finite CSS animations (a hover fades in) are finished first.
      screenshot: async (shot) => {
        await page.screenshot({ path: join(artefacts, `${shot}.png`), animations: 'disabled' });
      },
      keepFailure: (shot) =>
        onTestFailed(async () => {
          await page
            .screenshot({ path: join(artefacts, `failed-${shot}.png`), animations: 'disabled' })
            .catch(() => undefined);
        }),
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
