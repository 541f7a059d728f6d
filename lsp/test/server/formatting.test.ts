/**
 * Over stdio: formatting and range formatting with the project's Prettier config read from the file's
 * folder (the server's I/O), a refusal for a YAML error said as an error reply; an Ansible playbook in a
 * bare playbooks/ folder gets no diagnostics, and a playbook whose top level becomes a list has its
 * diagnostics cleared.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TextEdit } from 'vscode-languageserver-protocol';
import { buildServer, fileUri, startClient } from '../support/client.js';
import type { TestClient } from '../support/client.js';
import { tempDir } from '../../../test/kit/temp.js';

const MESSY = 'version:   1\ntitle:    "Fix it"   # the title\nsteps:\n  only:\n      run:   make\n';

describe('formatting and Ansible playbooks over stdio', () => {
  let client: TestClient;
  let root: string;

  beforeAll(async () => {
    buildServer();
    root = tempDir('kp-lsp-format-');
    mkdirSync(join(root, 'playbooks'));
    writeFileSync(join(root, '.prettierrc'), 'singleQuote: true\n');
    client = await startClient({ workspaceFolders: [{ uri: fileUri(root), name: 'w' }] });
  }, 120_000);

  afterAll(async () => {
    if (client.process.exitCode === null) await client.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('says it formats documents and ranges', () => {
    expect(client.initializeResult.capabilities.documentFormattingProvider).toBe(true);
    expect(client.initializeResult.capabilities.documentRangeFormattingProvider).toBe(true);
  });

  it("formats with the project's .prettierrc, and a range with the edits of its lines", async () => {
    const uri = fileUri(join(root, 'playbooks', 'pr.yml'));
    await client.open(uri, MESSY);
    const options = { tabSize: 8, insertSpaces: true };
    const edits = await client.request<TextEdit[]>('textDocument/formatting', {
      textDocument: { uri },
      options,
    });
    expect(edits.map((e) => e.newText)).toEqual([
      'version: 1\n',
      "title: 'Fix it' # the title\n",
      '    run: make\n',
    ]);
    const ranged = await client.request<TextEdit[]>('textDocument/rangeFormatting', {
      textDocument: { uri },
      range: { start: { line: 4, character: 0 }, end: { line: 4, character: 5 } },
      options,
    });
    expect(ranged).toEqual([
      {
        range: { start: { line: 4, character: 0 }, end: { line: 5, character: 0 } },
        newText: '    run: make\n',
      },
    ]);
  });

  it('refuses a document with a YAML error, saying where it is', async () => {
    const uri = fileUri(join(root, 'playbooks', 'broken.yml'));
    await client.open(uri, 'version: 1\ntitle: [\n');
    await expect(
      client.request('textDocument/formatting', {
        textDocument: { uri },
        options: { tabSize: 2, insertSpaces: true },
      }),
    ).rejects.toThrow(/not formatted: line 2, column \d+ has a YAML error/);
  });

  it('gives an Ansible playbook no diagnostics, and clears those of a playbook that becomes a list', async () => {
    const ansible = fileUri(join(root, 'playbooks', 'site.yml'));
    await client.open(ansible, '- hosts: all\n  tasks:\n    - ansible.builtin.ping:\n');
    const uri = fileUri(join(root, 'playbooks', 'turns.yml'));
    await client.open(uri, 'version: 1\ntitle: T\n');
    expect((await client.diagnosticsOf(uri, 1)).map((d) => d.code)).toEqual(['PB103']);
    await client.notify('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: '- hosts: all\n' }],
    });
    expect(await client.diagnosticsOf(uri, 2)).toEqual([]);
    expect(client.diagnostics.get(ansible)?.diagnostics ?? []).toEqual([]);
  });
});
