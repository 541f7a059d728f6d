/**
 * A person's first Format Document in a new window (issue 31): formatting is the very first request after
 * `initialized` — before any diagnostics, while the server still reads a workspace of 400 playbooks and
 * before Prettier is loaded — and the answer is the edits `kairoku-playbook format` would make, never an
 * empty answer. Run on the server the VS Code extension ships (`vscode-extension/dist/server.js`, the
 * bundle with Prettier inside) when it is built, else on `lsp/dist/stdio.js`.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextEdit } from 'vscode-languageserver-protocol';
import { analyzeFile } from '@kairoku-playbook/compiler';
import { formatPlaybook } from '../../src/service/features/formatting.js';
import { REPO, SERVER, buildServer, fileUri, startClient } from '../support/client.js';
import type { TestClient } from '../support/client.js';
import { tempDir } from '../../../test/kit/temp.js';

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
`;

const BUNDLED = join(REPO, 'vscode-extension', 'dist', 'server.js');

/** The text with LSP edits applied (line/character positions, as the editor applies them). */
function applyLspEdits(text: string, edits: readonly TextEdit[]): string {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const offset = (p: { line: number; character: number }) => (starts[p.line] ?? text.length) + p.character;
  let result = text;
  for (const edit of [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start)))
    result = result.slice(0, offset(edit.range.start)) + edit.newText + result.slice(offset(edit.range.end));
  return result;
}

describe('formatting as the first request of a new server', () => {
  let client: TestClient;
  let root: string;

  beforeAll(() => {
    if (!existsSync(BUNDLED)) buildServer();
    root = tempDir('kp-lsp-first-format-');
    mkdirSync(join(root, 'playbooks'));
    for (let i = 0; i < 400; i++)
      writeFileSync(join(root, 'playbooks', `p${i}.yml`), MESSY.replace('id: messy', `id: p${i}`));
  }, 120_000);

  afterAll(async () => {
    if (client && client.process.exitCode === null) await client.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('answers with the edits `format` makes, asked before any diagnostic is out', async () => {
    const server = existsSync(BUNDLED) ? BUNDLED : SERVER;
    client = await startClient({
      command: [process.execPath, server, '--stdio'],
      workspaceFolders: [{ uri: fileUri(root), name: 'w' }],
    });
    const path = join(root, 'playbooks', 'messy.yml');
    writeFileSync(path, MESSY);
    const uri = fileUri(path);
    await client.open(uri, MESSY);
    const edits = await client.request<TextEdit[] | null>('textDocument/formatting', {
      textDocument: { uri },
      options: { tabSize: 4, insertSpaces: true },
    });
    const expected = await formatPlaybook(analyzeFile(path, MESSY));
    if (!('text' in expected)) throw new Error(expected.refused);
    expect(expected.text).not.toBe(MESSY);
    expect(applyLspEdits(MESSY, edits ?? [])).toBe(expected.text);
  }, 60_000);
});
