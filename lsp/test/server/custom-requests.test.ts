/**
 * The server's own requests over stdio: the graph of an open playbook (what the VS Code extension's graph
 * view draws) follows the document's edits and agrees with its diagnostics; which files are playbooks;
 * params that do not fit are refused like LSP's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import type { GraphAnswer } from '@kairoku-playbook/protocol';
import { GRAPH_REQUEST, PLAYBOOK_FILES_REQUEST } from '../../src/server/custom-requests.js';
import { buildServer, startClient } from '../support/client.js';
import type { TestClient } from '../support/client.js';

const TEXT = `version: 1
title: Graph
steps:
  plan:
    role: planner
    prompt: Plan it.
  build:
    needs: [plan]
    run: make
    outcomes:
      pass: next
      fail: { loop: plan, max: 2 }
`;

const URI = 'file:///virtual/playbooks/graph.yml';

describe('the server’s own requests', () => {
  let client: TestClient;

  beforeAll(async () => {
    buildServer();
    client = await startClient();
  }, 120_000);

  afterAll(async () => {
    if (client.process.exitCode === null) await client.stop();
  });

  const graph = (uri = URI) => client.request<GraphAnswer>(GRAPH_REQUEST, { textDocument: { uri } });

  it('kairoku-playbook/graph: the graph of the document as it is now, as its diagnostics see it', async () => {
    await client.open(URI, TEXT);
    const answer = await graph();
    expect(answer).toMatchObject({ kind: 'graph', file: '/virtual/playbooks/graph.yml', rows: 2 });
    expect(answer.kind === 'graph' && answer.steps.map((s) => s.name)).toEqual(['plan', 'build']);
    expect(answer.kind === 'graph' && answer.loops).toEqual([
      { from: 1, to: 0, outcome: 'fail', max: 2, exhausted: 'fail' },
    ]);

    // An edit: the answer right after it is of the new text, and its problems are the diagnostics.
    await client.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ text: TEXT.replace('needs: [plan]', 'needs: [plna]') }],
    });
    const broken = await graph();
    const diagnostics: Diagnostic[] = await client.diagnosticsOf(URI, 2);
    expect(broken).toMatchObject({ kind: 'problems', errors: 1 });
    expect(
      broken.kind === 'problems' && broken.problems.map((p) => [p.code, p.message, p.line - 1, p.column - 1]),
    ).toEqual(
      diagnostics
        .filter((d) => d.severity === 1)
        .map((d) => [d.code, d.message, d.range.start.line, d.range.start.character]),
    );
  });

  it('kairoku-playbook/graph: none for a document the server does not have', async () => {
    expect(await graph('file:///virtual/playbooks/closed.yml')).toMatchObject({ kind: 'none' });
  });

  it('kairoku-playbook/playbookFiles: the playbooks among the files given', async () => {
    expect(
      await client.request<string[]>(PLAYBOOK_FILES_REQUEST, {
        uris: [
          'file:///w/playbooks/a.yml',
          'file:///w/playbooks/a.test.yml',
          'file:///w/b.playbook.yaml',
          'file:///w/c.yml',
        ],
      }),
    ).toEqual(['file:///w/playbooks/a.yml', 'file:///w/b.playbook.yaml']);
  });

  it('refuses params that do not fit, with what they must be', async () => {
    await expect(client.request(GRAPH_REQUEST, { textDocument: { uri: 7 } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.textDocument.uri must be a string'),
    });
    await expect(client.request(PLAYBOOK_FILES_REQUEST, { uris: ['a', null] })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('params.uris[1] must be a string'),
    });
  });
});
