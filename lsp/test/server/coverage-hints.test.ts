/**
 * Coverage hints through the real server: a `NAME.coverage.json` on disk beside an opened playbook gives
 * faded Hint diagnostics (their tag and data intact over the protocol), a code action that writes the
 * test, and they go when the file says the tests take everything (a watched-file event). The service's
 * side is in test/service/features/coverage-hints.test.ts.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { coverageReport } from '@kairoku-playbook/machine';
import type { CoverageHits } from '@kairoku-playbook/machine';
import { buildServer, fileUri, startClient } from '../support/client.js';
import { tempDir } from '../../../test/kit/temp.js';

const PLAYBOOK = `version: 1
title: Review
steps:
  review:
    role: reviewer
    prompt: Review it.
    outcomes: { approved: next, blocked: fail }
`;

const dir = tempDir('kp-lsp-coverage-');
const path = join(dir, 'review.playbook.yml');
const coveragePath = join(dir, 'review.playbook.coverage.json');
const uri = fileUri(path);
beforeAll(() => buildServer(), 120_000);

function writeCoverage(hits: CoverageHits): void {
  const ir = compilePlaybook('review.playbook.yml', PLAYBOOK).ir!;
  const report = coverageReport(ir, 'review.playbook.yml', hits, 1);
  writeFileSync(coveragePath, JSON.stringify({ coverage: 1, sha256: ir.source.sha256, ...report }));
}

describe('coverage hints over the protocol', () => {
  it('fades the outcome no test takes, offers its test, and follows the coverage file', async () => {
    writeFileSync(path, PLAYBOOK);
    writeCoverage({ 'reached review': 1, 'outcome review approved': 1 });
    const client = await startClient();
    await client.open(uri, PLAYBOOK);
    const [hint, ...rest] = await client.diagnosticsOf(uri, 1);
    expect(rest).toEqual([]);
    expect(hint).toMatchObject({
      range: { start: { line: 6, character: 32 }, end: { line: 6, character: 39 } },
      severity: 4,
      tags: [1],
      source: 'kairoku-playbook coverage',
      message: 'no test takes this outcome',
      data: { unit: 'review', arm: 'blocked', kind: 'outcome' },
    });
    const actions = await client.connection.sendRequest<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri },
      range: hint!.range,
      context: { diagnostics: [hint as Diagnostic] },
    });
    expect(actions.map((a) => a.title)).toEqual([
      'Write a test that takes review: blocked (review.playbook.test.yml)',
    ]);
    writeCoverage({ 'outcome review approved': 1, 'outcome review blocked': 1 });
    await client.notify('workspace/didChangeWatchedFiles', {
      changes: [{ uri: fileUri(coveragePath), type: 2 }],
    });
    await client.waitFor(() => client.diagnostics.get(uri)?.diagnostics.length === 0);
    expect(await client.stop()).toBe(0);
  });
});
