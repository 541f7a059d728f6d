/**
 * FUZZ: thousands of random edits through didChange (characters and lines inserted, deleted, duplicated in
 * the sample playbooks), with every feature asked at random places in between. The server must never crash
 * or log a failure, its diagnostics must still equal the compiler's for the final texts, and its heap
 * must stay bounded.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver-protocol';
import { SourceText, toJsonDiagnostic, validateWorkspace } from '@kairoku-playbook/compiler';
import { STATS_REQUEST } from '../../src/server/custom-requests.js';
import type { ServerStats } from '../../src/server/custom-requests.js';
import { REPO, buildServer, fileUri, startClient } from '../support/client.js';
import { Random, randomEdit } from '../support/random.js';

const EDITS = Number(process.env.LSP_FUZZ_EDITS ?? 3000);
const SEED = Number(process.env.LSP_FUZZ_SEED ?? 20240531);

interface Doc {
  uri: string;
  path: string;
  text: string;
  version: number;
}

describe('fuzz through didChange', () => {
  it(`survives ${EDITS} random edits (seed ${SEED}) with every feature asked in between`, async () => {
    buildServer();
    const client = await startClient();
    const random = new Random(SEED);
    const docs: Doc[] = readdirSync(join(REPO, 'playbooks'))
      .filter((n) => /\.ya?ml$/.test(n) && !/\.test\.ya?ml$/.test(n))
      .sort()
      .map((name) => {
        const path = join(REPO, 'playbooks', name);
        return { uri: fileUri(path), path, text: readFileSync(path, 'utf8'), version: 1 };
      });
    for (const doc of docs) await client.open(doc.uri, doc.text);
    for (const doc of docs) await client.diagnosticsOf(doc.uri, 1);

    const position = (doc: Doc) => {
      const source = new SourceText(doc.text);
      return source.positionAt(random.int(doc.text.length + 1));
    };
    const askEverything = async (doc: Doc) => {
      const textDocument = { uri: doc.uri };
      const requests: Promise<unknown>[] = [
        client.request('textDocument/completion', { textDocument, position: position(doc) }),
        client.request('textDocument/hover', { textDocument, position: position(doc) }),
        client.request('textDocument/definition', { textDocument, position: position(doc) }),
        client.request('textDocument/references', {
          textDocument,
          position: position(doc),
          context: { includeDeclaration: true },
        }),
        client.request('textDocument/documentHighlight', { textDocument, position: position(doc) }),
        client.request('textDocument/documentSymbol', { textDocument }),
        client.request('textDocument/semanticTokens/full', { textDocument }),
        client.request('textDocument/foldingRange', { textDocument }),
        client.request('textDocument/codeAction', {
          textDocument,
          range: { start: { line: 0, character: 0 }, end: position(doc) },
          context: { diagnostics: [] },
        }),
      ];
      // Rename may refuse (a ResponseError with a reason); anything else must answer.
      const renames = [
        client.request('textDocument/prepareRename', { textDocument, position: position(doc) }),
        client.request('textDocument/rename', {
          textDocument,
          position: position(doc),
          newName: 'renamed-x',
        }),
      ].map((p) =>
        p.catch((error: { code?: number }) => {
          if (error.code !== -32803) throw error;
        }),
      );
      await Promise.all([...requests, ...renames]);
    };

    for (const doc of docs) await askEverything(doc);
    const before = await client.request<ServerStats>(STATS_REQUEST, null);

    for (let i = 0; i < EDITS; i++) {
      const doc = random.pick(docs);
      const edit = randomEdit(random, doc.text);
      const source = new SourceText(doc.text);
      doc.text = doc.text.slice(0, edit.start) + edit.insert + doc.text.slice(edit.end);
      doc.version++;
      await client.notify('textDocument/didChange', {
        textDocument: { uri: doc.uri, version: doc.version },
        contentChanges: [
          {
            range: { start: source.positionAt(edit.start), end: source.positionAt(edit.end) },
            text: edit.insert,
          },
        ],
      });
      if (i % 25 === 24) await askEverything(doc);
    }

    // Still answering, and the diagnostics are the compiler's for the final texts.
    const after = await client.request<ServerStats>(STATS_REQUEST, null);
    const validation = validateWorkspace(docs.map((d) => ({ file: d.path, text: d.text })));
    for (const doc of docs) {
      const published = await client.diagnosticsOf(doc.uri, doc.version);
      const source = new SourceText(doc.text);
      const asJson = (d: LspDiagnostic) => ({
        line: d.range.start.line + 1,
        column: d.range.start.character + 1,
        endLine: d.range.end.line + 1,
        endColumn: d.range.end.character + 1,
        code: d.code,
        message: d.message,
      });
      const expected = validation.diagnostics
        .filter((d) => d.file === doc.path)
        .map((d) => toJsonDiagnostic(d, () => source))
        .map(({ line, column, endLine, endColumn, code, message }) => ({
          line,
          column,
          endLine,
          endColumn,
          code,
          message,
        }));
      expect(published.map(asJson), doc.path).toEqual(expected);
    }
    expect(after.errors, `the server logged failures: ${client.stderr.join('')}`).toBe(0);
    expect(client.logs.filter((l) => l.type === 1)).toEqual([]);
    expect(after.validations).toBeGreaterThan(50);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(64 * 1024 * 1024);
    expect(await client.stop()).toBe(0);
  }, 300_000);
});
