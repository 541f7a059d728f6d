/**
 * `.kairoku/exclude` in the language server (issue 23): what it names is not a playbook, and a change of
 * it (a watched file) makes the server discover the workspace again, so the Problems panel follows it.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type {
  WorkspaceDiagnosticReport,
  WorkspaceFullDocumentDiagnosticReport,
} from 'vscode-languageserver-protocol';
import { buildServer, fileUri, startClient } from '../support/client.js';
import { tempDir } from '../../../test/kit/temp.js';

const BROKEN = 'version: 1\nid: broken\ntitle: Broken\nsteps:\n  a:\n    needs: [nope]\n    prompt: x\n';

describe('the workspace excludes in the language server', () => {
  it('leave an excluded playbook unchecked until the exclude file changes, then check it', async () => {
    const root = tempDir('kp-lsp-exclude-');
    mkdirSync(join(root, 'examples'));
    mkdirSync(join(root, 'playbooks'));
    mkdirSync(join(root, '.kairoku'));
    writeFileSync(join(root, 'examples', 'x.playbook.yml'), BROKEN);
    writeFileSync(join(root, 'playbooks', 'other.yml'), BROKEN.replace('broken', 'other'));
    writeFileSync(join(root, '.kairoku', 'exclude'), 'examples\n');
    buildServer();
    const client = await startClient({
      workspaceFolders: [{ uri: fileUri(root), name: 'ws' }],
      capabilities: {
        textDocument: { diagnostic: {} },
        workspace: { diagnostics: { refreshSupport: false } },
      },
    });
    const excluded = fileUri(join(root, 'examples', 'x.playbook.yml'));
    const codesOf = async (uri: string) => {
      const report = await client.request<WorkspaceDiagnosticReport>('workspace/diagnostic', {
        previousResultIds: [],
      });
      const item = report.items.find((i) => i.uri === uri) as
        WorkspaceFullDocumentDiagnosticReport | undefined;
      return item ? item.items.map((d) => d.code) : undefined;
    };
    try {
      await vi.waitFor(
        async () => expect(await codesOf(fileUri(join(root, 'playbooks', 'other.yml')))).toContain('PB103'),
        {
          timeout: 10_000,
        },
      );
      expect(await codesOf(excluded)).toBeUndefined();
      writeFileSync(join(root, '.kairoku', 'exclude'), '# nothing left out\n');
      await client.notify('workspace/didChangeWatchedFiles', {
        changes: [{ uri: fileUri(join(root, '.kairoku', 'exclude')), type: 2 }],
      });
      await vi.waitFor(async () => expect(await codesOf(excluded)).toContain('PB103'), { timeout: 10_000 });
    } finally {
      expect(await client.stop()).toBe(0);
      rmSync(root, { recursive: true, force: true });
    }
  }, 30_000);
});
