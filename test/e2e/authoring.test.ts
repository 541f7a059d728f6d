/**
 * Authoring in a real VS Code (code-server, as in vscode.test.ts: its own sandbox and workspace), issue 13's
 * editor items where they show: an Ansible playbook in a bare playbooks/ folder opens as plain YAML (the
 * status bar's language) and gets no diagnostic, open or not; Format Document formats a badly indented playbook exactly as
 * `kairoku-playbook format` writes it; a playbook test's unknown step shows its PB803 in the Problems
 * panel; after Check workspace, with a broken playbook that is not open, the Problems badge counts each
 * problem once (the rows are exactly what `kairoku-playbook check` says, which leaves the Ansible file out).
 * Screenshots are kept in test-results/vscode-e2e-authoring/.
 *
 * Needs `node scripts/setup-vscode-e2e.mjs` (which `npm run test:e2e` runs first) and the CLI's bundle
 * (`npm run build`). Everything listens on 127.0.0.1, lives in one temporary folder, and is stopped after.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN } from './support/playbooks.js';
import { ROOT, openSession } from './support/session.js';
import { CLI } from '../kit/cli.js';
import type { Session } from './support/session.js';
import {
  openFile,
  readProblems,
  runCommand,
  saveActiveEditor,
  showProblems,
  sortProblems,
  waitForEditorLine,
} from './support/workbench.js';

/** An Ansible playbook: a list of plays, where Ansible keeps them (SPEC §2: not ours). */
const ANSIBLE = `- name: Install the web server
  hosts: web
  become: true
  tasks:
    - name: Install nginx
      ansible.builtin.apt:
        name: nginx
        state: present
`;

/** A valid playbook, badly indented and spaced. */
const MESSY = `version: 1
id: messy
title:    A badly indented playbook
inputs:
    task:
          type: string
steps:
    plan:
        role: planner
        prompt:   'Plan: \${{ inputs.task }}'
        outputs:
            plan:    string
    implement:
        needs:   [ plan ]
        role: implementer
        prompt: 'Implement: \${{ steps.plan.outputs.plan }}'
`;

/** The playbook of ship.test.yml: docs/diagnostics.md's, PB803 (its fixture). */
const SHIP = readFileSync(join(ROOT, 'test/fixtures/err/pb803-test-unknown-steps/ship.yml'), 'utf8');

/** A test of ship.yml that scripts a step ship.yml does not declare (PB803). */
const SHIP_TEST = `inputs: { task: add a flag }
steps:
  implemnt:
    - { outcome: done, outputs: { branch: feat/flag } }
`;

interface CheckedDiagnostic {
  file: string;
  severity: string;
  code: string;
  message: string;
  line: number;
  column: number;
}

/** What `kairoku-playbook check --format json` says of the paths. */
function check(...paths: string[]): CheckedDiagnostic[] {
  const result = spawnSync(process.execPath, [CLI, 'check', '--format', 'json', ...paths], {
    encoding: 'utf8',
  });
  if (result.status !== 0 && result.status !== 1) throw new Error(`check failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as CheckedDiagnostic[];
}

let session: Session | undefined;
let page: Page;
let workspace: string;
const playbook = (name: string) => join(workspace, 'playbooks', name);
const screenshot = (name: string) => session!.screenshot(name);

/** The number on the Problems tab's badge (0 when it shows none). */
async function problemsBadge(): Promise<number> {
  const badge = page
    .locator('.part.panel .composite-bar .action-item .badge-content')
    .filter({ visible: true });
  if ((await badge.count()) === 0) return 0;
  return Number((await badge.first().textContent())?.trim() || '0');
}

beforeAll(async () => {
  session = await openSession(
    'vscode-e2e-authoring',
    (folder) => {
      workspace = folder;
      writeFileSync(playbook('site.yml'), ANSIBLE);
      writeFileSync(playbook('messy.yml'), MESSY);
      writeFileSync(playbook('ship.yml'), SHIP);
      writeFileSync(playbook('ship.test.yml'), SHIP_TEST);
      writeFileSync(playbook('broken.yml'), BROKEN); // never opened in an editor
    },
    async (loaded) => {
      await loaded.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
      await showProblems(loaded);
    },
  );
  page = session.page;
}, 300_000);

afterAll(async () => {
  await session?.close();
  session = undefined;
}, 60_000);

describe('authoring in a real VS Code (code-server)', () => {
  it('Format Document formats a badly indented playbook as `kairoku-playbook format` writes it', async () => {
    session!.keepFailure('format');
    // What the CLI writes, on a copy outside the workspace.
    const copyDir = join(session!.sandbox.dir, 'format-copy');
    mkdirSync(copyDir, { recursive: true });
    writeFileSync(join(copyDir, 'messy.yml'), MESSY);
    execFileSync(process.execPath, [CLI, 'format', join(copyDir, 'messy.yml')], { stdio: 'pipe' });
    const formatted = readFileSync(join(copyDir, 'messy.yml'), 'utf8');
    expect(formatted).not.toBe(MESSY);

    await openFile(page, 'messy.yml');
    const language = page.locator('[id="status.editor.mode"]');
    await expect
      .poll(() => language.textContent(), { timeout: 90_000, interval: 250 })
      .toBe('Kairoku Playbook');
    // The formatter is the language server's: wait for it to have reported on the workspace.
    await expect
      .poll(async () => (await readProblems(page)).some((p) => p.code === 'PB200'), {
        timeout: 90_000,
        interval: 250,
      })
      .toBe(true);
    await runCommand(page, 'Format Document');
    // What a person waits for before saving: the editor showing the formatted text. (A save pressed while
    // the formatter still works writes the unformatted text, and the edits then land in a dirty editor:
    // on a fresh machine the first format can take seconds.)
    await waitForEditorLine(page, 'title:', 'title: A badly indented playbook', 60_000);
    await saveActiveEditor(page);
    await expect
      .poll(() => readFileSync(playbook('messy.yml'), 'utf8'), { timeout: 30_000, interval: 250 })
      .toBe(formatted);
    await screenshot('1-formatted');
  });

  it("a playbook test's unknown step shows its PB803 in the Problems panel", async () => {
    session!.keepFailure('test-file');
    const expected = check(playbook('ship.test.yml')).filter((d) => d.file.endsWith('ship.test.yml'));
    expect(expected.map((d) => d.code)).toEqual(['PB803']);
    await openFile(page, 'ship.test.yml');
    await expect
      .poll(
        async () =>
          (await readProblems(page))
            .filter((p) => p.code === 'PB803')
            .map((p) => ({ severity: p.severity, message: p.message, line: p.line, column: p.column })),
        { timeout: 90_000, interval: 250 },
      )
      .toEqual(
        expected.map((d) => ({ severity: d.severity, message: d.message, line: d.line, column: d.column })),
      );
    await screenshot('2-test-file-pb803');
  });

  it('after Check workspace, with a broken playbook not open, the Problems badge counts each problem once', async () => {
    session!.keepFailure('check-workspace');
    await runCommand(page, 'View: Close All Editors');
    const expected = check(workspace);
    expect(expected.filter((d) => d.file.endsWith('broken.yml'))).toHaveLength(3);
    await runCommand(page, 'Kairoku Playbooks: Check workspace');
    // Its summary shows once its own collection (if any) is set: the count is then final.
    await page
      .locator('.notification-toast', { hasText: /Checked \d+ playbooks?:/ })
      .first()
      .waitFor({ timeout: 90_000 });
    // site.yml (an Ansible playbook) has no row: the server leaves it out as check does.
    await expect
      .poll(
        async () => (await readProblems(page)).map((p) => `${p.severity} ${p.code} ${p.line}:${p.column}`),
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toEqual(
        sortProblems(expected.map((d) => ({ ...d, source: 'kairoku-playbook' }))).map(
          (d) => `${d.severity} ${d.code} ${d.line}:${d.column}`,
        ),
      );
    // Each problem once: the badge counts the rows.
    const rows = (await readProblems(page)).length;
    await expect.poll(() => problemsBadge(), { timeout: 30_000, interval: 250 }).toBe(rows);
    await screenshot('3-check-workspace');
  });

  it('an Ansible playbook in playbooks/ opens as YAML, with no diagnostic, and check leaves it out', async () => {
    session!.keepFailure('ansible');
    expect(check(workspace).some((d) => d.file.endsWith('site.yml'))).toBe(false);
    await openFile(page, 'site.yml');
    const language = page.locator('[id="status.editor.mode"]');
    await expect.poll(() => language.textContent(), { timeout: 90_000, interval: 250 }).toBe('YAML');
    // (the PB104 a list at the top of a playbook gets would be the only one in this workspace)
    expect((await readProblems(page)).filter((p) => p.code === 'PB104')).toEqual([]);
    await screenshot('4-ansible-yaml');
  });

  it("the workspace's .kairoku/policy.yml, opened, shows check's PB701 in the Problems panel", async () => {
    session!.keepFailure('policy-file');
    mkdirSync(join(workspace, '.kairoku'), { recursive: true });
    writeFileSync(join(workspace, '.kairoku', 'policy.yml'), 'strict: false\ngatd:\n  - "make deploy*"\n');
    const expected = check(workspace).filter((d) => d.file.endsWith('policy.yml'));
    expect(expected.map((d) => d.code)).toEqual(['PB701']);
    await openFile(page, 'policy.yml', join(workspace, '.kairoku', 'policy.yml'));
    await expect
      .poll(
        async () =>
          (await readProblems(page))
            .filter((p) => p.code === 'PB701')
            .map((p) => ({ severity: p.severity, message: p.message, line: p.line, column: p.column })),
        { timeout: 90_000, interval: 250 },
      )
      .toEqual(
        expected.map((d) => ({ severity: d.severity, message: d.message, line: d.line, column: d.column })),
      );
    await screenshot('5-policy-file-pb701');
  });
});
