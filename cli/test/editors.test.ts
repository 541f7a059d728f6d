/**
 * The README's editor snippets, in real editors: Debian 12's Neovim 0.7.2 (the `start_client` one) and
 * Emacs 28.2 with elpa-eglot and elpa-yaml-mode, each started headless on a playbook with a mistake,
 * reading back the diagnostic the language server sent. CI installs both (.ci/run).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliOnPath, hasTool, REPO, workspaceWith } from '../../test/kit/index.js';

const BROKEN = 'version: 1\ntitle: Broken\nsteps:\n  plan:\n    role: planer\n    prompt: Plan it.\n';

/** The README's fenced block of `language` right after the line that starts with `heading`. */
function readmeSnippet(heading: string, language: string): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n${heading}`);
  expect(at, `README.md has no "${heading}"`).toBeGreaterThan(0);
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```').exec(readme.slice(at));
  expect(block, `README.md has no ${language} block after "${heading}"`).not.toBeNull();
  return block![1]!;
}

/** The snippet with `npx kairoku-playbook` as the built CLI on PATH (npx would look for it online). */
function withoutNpx(snippet: string): string {
  const local = snippet
    .replace(`'npx', 'kairoku-playbook'`, `'kairoku-playbook'`)
    .replace(`"npx" "kairoku-playbook"`, `"kairoku-playbook"`);
  expect(local).not.toContain('npx');
  return local;
}

function editorFolder() {
  const folder = workspaceWith({ 'playbooks/broken.yml': BROKEN });
  const env = {
    ...process.env,
    PATH: `${cliOnPath()}:${process.env.PATH}`,
    DIAGNOSTICS_OUT: join(folder, 'diagnostics.txt'),
  };
  return { folder, env };
}

describe.skipIf(!hasTool('nvim'))("the README's Neovim 0.7 snippet", () => {
  it('shows the diagnostic in a real Neovim', () => {
    const { folder, env } = editorFolder();
    const version = spawnSync('nvim', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
    const harness = `
local out = os.getenv('DIAGNOSTICS_OUT')
local tries = 0
local function poll()
  tries = tries + 1
  local found = vim.diagnostic.get(0)
  if #found > 0 or tries > 600 then
    local lines = {}
    for _, d in ipairs(found) do
      local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or ''
      table.insert(lines, string.format('%d:%d %s %s', d.lnum + 1, d.col + 1, code, d.message))
    end
    vim.fn.writefile(lines, out)
    vim.cmd('qa!')
  else
    vim.defer_fn(poll, 100)
  end
end
vim.defer_fn(poll, 100)
`;
    writeFileSync(
      join(folder, 'init.lua'),
      `${withoutNpx(readmeSnippet('Neovim 0.7 to 0.9', 'lua'))}\n${harness}`,
    );
    const result = spawnSync('nvim', ['--headless', '-u', 'init.lua', 'playbooks/broken.yml'], {
      cwd: folder,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status, `${version}: ${result.stderr}`).toBe(0);
    expect(readFileSync(join(folder, 'diagnostics.txt'), 'utf8')).toBe(
      '5:11 PB201 unknown role "planer"; did you mean "planner"?\n',
    );
  }, 150_000);
});

describe.skipIf(!hasTool('emacs'))("the README's Emacs (eglot) snippet", () => {
  it('shows the diagnostic in a real Emacs', () => {
    const { folder, env } = editorFolder();
    writeFileSync(join(folder, 'snippet.el'), withoutNpx(readmeSnippet('Emacs with eglot', 'elisp')));
    writeFileSync(
      join(folder, 'harness.el'),
      `(package-initialize)
(require 'eglot)
(require 'yaml-mode)
(load (expand-file-name "snippet.el"))
(find-file (expand-file-name "playbooks/broken.yml"))
;; eglot-ensure waits for the end of the first command, and batch mode has none: run that hook
(run-hooks 'post-command-hook)
(let ((tries 0) (found nil))
  (while (and (null found) (< tries 600))
    (accept-process-output nil 0.1)
    (setq tries (1+ tries))
    (setq found (flymake-diagnostics)))
  (let ((lines (mapcar (lambda (d) (format "%d %s\\n" (line-number-at-pos (flymake-diagnostic-beg d))
                                             (flymake-diagnostic-text d)))
                       found)))
    (with-temp-file (getenv "DIAGNOSTICS_OUT") (apply #'insert lines))))
(kill-emacs 0)
`,
    );
    const result = spawnSync('emacs', ['--batch', '-l', 'harness.el'], {
      cwd: folder,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(folder, 'diagnostics.txt'), 'utf8')).toBe(
      '5 kairoku-playbook [PB201]: unknown role "planer"; did you mean "planner"?\n',
    );
  }, 150_000);
});
