/**
 * The extension in a real VS Code: code-server (from npm, run by Node 24) with the packaged .vsix installed
 * by `--install-extension`, shown in Debian's Chromium driven by playwright-core. The workspace holds one
 * broken playbook. The test reads the Problems panel (exactly what `kairoku-playbook check --format json`
 * says of the file), two hovers (a key's documentation, an expression's type), and uses a completion that
 * replaces a misspelt step in `needs`, after which that problem goes away, in the editor and in `check`.
 * Then the Playbooks view: Run playbook (the CodeLens) on pr.yml opens the view with its start form; the run
 * starts on the `serve` the extension started (sim), waits at its gate, the graph view links to it, the gate
 * is decided in the view, and the run completes.
 * Screenshots are kept in test-results/vscode-e2e/.
 *
 * Needs `node scripts/setup-vscode-e2e.mjs` (which `npm run test:e2e` runs first) and the CLI's bundle
 * (`npm run build`). Everything listens on 127.0.0.1, lives in one temporary folder, and is stopped after.
 */
// The callbacks given to page.evaluate run in the browser: the DOM's types.
/// <reference lib="dom" />
import { spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN } from './support/playbooks.js';
import { ROOT, openSession } from './support/session.js';
import { CLI } from '../kit/cli.js';
import type { Session } from './support/session.js';
import {
  hoverText,
  lineWith,
  openFile,
  pointAt,
  readProblems,
  runCommand,
  saveActiveEditor,
  showProblems,
  sortProblems,
  suggestWidget,
} from './support/workbench.js';
import type { Problem } from './support/workbench.js';

const SCHEMA = join(ROOT, 'grammar', 'schema', 'playbook.schema.json');

/** What `kairoku-playbook check --format json` says of a file, in the Problems panel's shape. */
function check(file: string): Problem[] {
  const result = spawnSync(process.execPath, [CLI, 'check', '--format', 'json', file], { encoding: 'utf8' });
  if (result.status !== 0 && result.status !== 1) throw new Error(`check failed: ${result.stderr}`);
  const diagnostics = JSON.parse(result.stdout) as {
    severity: string;
    code: string;
    message: string;
    line: number;
    column: number;
  }[];
  return sortProblems(
    diagnostics.map((d) => ({
      severity: d.severity,
      code: d.code,
      message: d.message,
      source: 'kairoku-playbook',
      line: d.line,
      column: d.column,
    })),
  );
}

let session: Session | undefined;
let page: Page;
let file: string;
const screenshot = (name: string) => session!.screenshot(name);

beforeAll(async () => {
  session = await openSession(
    'vscode-e2e',
    (workspace) => {
      file = join(workspace, 'playbooks', 'broken.yml');
      writeFileSync(file, BROKEN);
      copyFileSync(join(ROOT, 'playbooks', 'pr.yml'), join(workspace, 'playbooks', 'pr.yml'));
    },
    async (loaded) => {
      await openFile(loaded, 'broken.yml');
      await showProblems(loaded);
    },
  );
  page = session.page;
}, 300_000);

afterAll(async () => {
  await session?.close();
  session = undefined;
}, 60_000);

describe('the extension in a real VS Code (code-server)', () => {
  it('the Problems panel shows exactly what check says, with codes and severities', async () => {
    session!.keepFailure('problems');
    const expected = check(file);
    expect(expected.map((p) => `${p.severity} ${p.code}`)).toEqual([
      'warning PB900',
      'error PB202',
      'error PB200',
    ]);
    // The language server answers after it has started and validated: wait for its diagnostics.
    await expect.poll(() => readProblems(page), { timeout: 90_000, interval: 250 }).toEqual(expected);
    await screenshot('1-problems');
  });

  it('a hover on a key shows its documentation from the schema', async () => {
    session!.keepFailure('hover-key');
    const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as {
      definitions: { step: { properties: { needs: { description: string } } } };
    };
    const description = schema.definitions.step.properties.needs.description;
    expect(await hoverText(page, 'needs:', 2, description)).toBe(`needs: ${description}`);
    await screenshot('2-hover-key');
  });

  it('a hover in an expression shows the type of the name and where it is declared', async () => {
    session!.keepFailure('hover-expression');
    const text = await hoverText(page, 'steps.plan.outputs.plan', 20, 'steps.plan.outputs.plan: string');
    const declared = BROKEN.split('\n').indexOf('      plan: string') + 1;
    expect(text).toContain('steps.plan.outputs.plan: string');
    expect(text).toContain(`Declared on line ${declared}.`);
    await screenshot('3-hover-expression');
  });

  it('completion in needs offers the steps; accepting one fixes the misspelling', async () => {
    session!.keepFailure('completion');
    await page.mouse.move(1, 1);
    await page.keyboard.press('Escape');
    // Select the misspelt word, delete it, ask for suggestions, then type to filter them.
    const word = await pointAt(page, '[plna]', 2);
    await page.mouse.dblclick(word.x, word.y);
    await page.keyboard.press('Delete');
    await expect.poll(() => lineWith(page, 'needs:')).toBe('    needs: []');
    const { widget, focused } = suggestWidget(page);
    // Asked again when the first answer had nothing (the server still busy with the edit), as a person
    // presses Ctrl+Space again.
    await expect
      .poll(
        async () => {
          await page.keyboard.press('Escape');
          await page.keyboard.press('Control+Space');
          return widget
            .locator('.monaco-list-row', { hasText: 'plan' })
            .first()
            .waitFor({ timeout: 5_000 })
            .then(
              () => true,
              () => false,
            );
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);
    await page.keyboard.type('pl');
    await expect.poll(() => focused.getAttribute('aria-label')).toMatch(/^plan\b/);
    await screenshot('4-completion');
    await page.keyboard.press('Enter');
    await widget.waitFor({ state: 'hidden' });
    await expect.poll(() => lineWith(page, 'needs:')).toBe('    needs: [plan]');

    // Saved, the file on disk has the fix, and the Problems panel again says exactly what check says.
    await saveActiveEditor(page);
    // (a loaded machine may take seconds to write it: the poll's default second is not enough)
    await expect
      .poll(() => readFileSync(file, 'utf8'), { timeout: 30_000, interval: 250 })
      .toBe(BROKEN.replace('needs: [plna]', 'needs: [plan]'));
    const expected = check(file);
    expect(expected.map((p) => p.code)).toEqual(['PB900', 'PB202']);
    await expect.poll(() => readProblems(page), { timeout: 30_000, interval: 250 }).toEqual(expected);
    await screenshot('5-fixed');
  });
});

/** The frame (of a webview: VS Code nests each in two iframes) whose page has `selector`. */
async function frameWith(page: Page, selector: string): Promise<Frame> {
  let found: Frame | undefined;
  await expect
    .poll(
      async () => {
        for (const frame of page.frames()) {
          if (frame === page.mainFrame()) continue;
          const has = await frame
            .locator(selector)
            .count()
            .catch(() => 0);
          if (has > 0) {
            found = frame;
            return true;
          }
        }
        return false;
      },
      { timeout: 90_000, interval: 500 },
    )
    .toBe(true);
  return found!;
}

/** How many elements match `selector` in all the webviews' frames together. */
async function countInFrames(page: Page, selector: string): Promise<number> {
  let total = 0;
  for (const frame of page.frames())
    if (frame !== page.mainFrame())
      total += await frame
        .locator(selector)
        .count()
        .catch(() => 0);
  return total;
}

describe('the Playbooks view in a real VS Code (code-server)', () => {
  const TITLE = 'Implement, review and land a change';

  it('Run playbook on pr.yml opens the view with its start form; the run starts, waits at its gate, is decided and completes', async () => {
    session!.keepFailure('playbooks-view');
    await page.keyboard.press('Escape');
    await openFile(page, 'pr.yml');
    // The CodeLens above the first line.
    const lens = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Run playbook' });
    await lens.first().waitFor({ timeout: 90_000 });
    await lens.first().click();

    // The view, in the sidebar, with the panel's page: served by the serve the extension started.
    const panel = await frameWith(page, '#app .connection');
    await panel.locator('.connection.on').waitFor({ timeout: 60_000 });
    const form = panel.getByRole('form', { name: `Start ${TITLE}` });
    await form.waitFor();
    // The form's first field has the focus (Run playbook put it there).
    await expect
      .poll(() => panel.evaluate(() => document.activeElement?.id ?? ''))
      .toBe('in-playbooks-pr-yml-task');
    await page.keyboard.type('Add a --json flag to the CLI');
    // the worst case of a run, from serve (its `compile` in a process of its own), through the extension
    await expect
      .poll(() => form.locator('.run-bound').textContent(), { timeout: 30_000 })
      .toMatch(/^Worst case At most 17 agent turns and 3 decisions by a person/);
    await screenshot('6-playbooks-start-form');
    await form.getByRole('button', { name: 'Start run' }).click();
    // The started run is shown (in the narrow sidebar the run, not the run list: either may be visible).
    await panel.locator('.run-view[data-run^="pr-"]').waitFor({ timeout: 60_000 });
    const gate = panel.locator('.node-button[data-step="ship"][data-status="waiting"]');
    await gate.waitFor({ timeout: 60_000 });

    // serve runs for this workspace: its discovery file names it, in the sandbox's store.
    const serveDir = join(session!.sandbox.home, '.kairoku-playbook', 'serve');
    expect(readdirSync(serveDir).filter((name) => name.endsWith('.json'))).toHaveLength(1);
    await screenshot('7-playbooks-gate');

    // The graph view links to the active run; the link opens it in the Playbooks view.
    await runCommand(page, 'Kairoku Playbooks: Show playbook graph');
    const graph = await frameWith(page, 'button.run-link');
    const link = graph.locator('button.run-link');
    await expect.poll(() => link.textContent()).toMatch(/^Open run pr-\w+ in the Playbooks view$/);
    const runId = /Open run (pr-\w+) in/.exec((await link.textContent()) ?? '')![1]!;
    // The graph is the panel's step graph, loaded from the extension's files under the view's CSP.
    await graph.locator('main#graph .node-button').nth(4).waitFor();
    expect(await graph.locator('main#graph .node-button').count()).toBe(5);
    // and the worst case of a run, from the server's exploration of the text (issue 26)
    expect(await graph.locator('p.bound').textContent()).toMatch(
      /^Worst case At most 17 agent turns and 3 decisions/,
    );
    await screenshot('8-graph-link');
    // With the sidebar closed, the link opens it again on the run.
    await page.keyboard.press('Control+B');
    await page.locator('.part.sidebar').waitFor({ state: 'hidden' });
    await link.click();
    await page.locator('.part.sidebar').waitFor({ state: 'visible' });
    // The run opened in the view (the sidebar is narrow: the run, not the run list, is shown), at its
    // address, as a link or a reload in a browser opens it.
    await panel.locator(`.run-view[data-run="${runId}"]`).waitFor();
    await expect.poll(() => panel.evaluate(() => location.hash)).toBe(`#/runs/${runId}`);

    await panel.getByLabel('Comment on ship').fill('Ship it after the release notes');
    await panel.getByRole('button', { name: 'approve', exact: true }).click();
    await panel
      .locator('.node-button[data-step="ship"][data-status="completed"]')
      .waitFor({ timeout: 60_000 });
    await panel.locator('.run-header .badge.completed', { hasText: 'completed' }).waitFor();
    await screenshot('9-playbooks-completed');
    // Once the run has ended, the graph view no longer offers it (it is redrawn: its frames are new).
    await expect
      .poll(() => countInFrames(page, 'button.run-link'), { timeout: 30_000, interval: 500 })
      .toBe(0);
    expect(await countInFrames(page, 'main#graph .node-button')).toBe(5);
  });
});
