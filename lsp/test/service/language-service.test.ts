/**
 * The language service without a server: documents in, LSP answers out, a disk in memory. What the
 * server sends is what these calls return (the protocol tests check that side over stdio).
 */
import { describe, expect, it } from 'vitest';
import { SourceText, validateWorkspace } from '@kairoku-playbook/compiler';
import { toLspDiagnostic } from '../../src/service/convert.js';
import { PlaybookLanguageService, isRefusal } from '../../src/service/language-service.js';
import { BASE, withCursor } from '../support/cursor.js';
import { memoryFs } from '../support/memory-fs.js';

const URI = 'file:///ws/playbooks/pb.yml';

/** A service with one open document; `sample` may hold a `<|>` cursor: its LSP position. */
function serviceWith(sample: string, files: Record<string, string> = {}) {
  const { text, offset } = sample.includes('<|>') ? withCursor(sample) : { text: sample, offset: 0 };
  const service = new PlaybookLanguageService(memoryFs(files));
  service.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
  service.openDocument(URI, text, 1);
  return { service, text, position: new SourceText(text).positionAt(offset) };
}

describe('diagnostics', () => {
  it("are the compiler's, field for field, in LSP positions, for open documents and playbooks on disk", () => {
    const broken = BASE.replace('needs: [plan]', 'needs: [plna]');
    const other = 'version: 1\ntitle: Other\nsteps:\n  only:\n    run: echo ${{ inputs.nope }}\n';
    const { service } = serviceWith(broken, { '/ws/other.playbook.yml': other });
    const walk = service.startDiscovery();
    expect(walk.advance(() => false)).toBe(true);
    expect(walk.finish()).toEqual([]);
    const result = service.validate();

    const expected = validateWorkspace([
      { file: 'other.playbook.yml', text: other },
      { file: 'playbooks/pb.yml', text: broken },
    ]).diagnostics;
    const lsp = (file: string, text: string) =>
      expected
        .filter((d) => d.file === file)
        .map((d) =>
          toLspDiagnostic(
            d,
            () => new SourceText(text),
            () => undefined,
          ),
        );
    expect(result.open.get(URI)).toEqual(lsp('playbooks/pb.yml', broken));
    expect(result.open.get(URI)!.map((d) => d.code)).toContain('PB200');
    expect(result.onDisk.get('file:///ws/other.playbook.yml')).toEqual(lsp('other.playbook.yml', other));
    expect(result.crashes.size).toBe(0);
  });

  it('follow watched files: a playbook created on disk, then deleted; other files are not read', () => {
    const files: Record<string, string> = {};
    const { service } = serviceWith(BASE, files);
    files['/ws/new.playbook.yml'] = 'version: 1\ntitle: New\nsteps: {}\n';
    files['/ws/notes.yml'] = 'not: a playbook';
    expect(
      service.watchedFilesChanged([
        { uri: 'file:///ws/notes.yml', type: 1 },
        { uri: 'not a uri', type: 1 },
      ]),
    ).toBe(false);
    expect(service.watchedFilesChanged([{ uri: 'file:///ws/new.playbook.yml', type: 1 }])).toBe(true);
    expect([...service.validate().onDisk.keys()]).toEqual(['file:///ws/new.playbook.yml']);
    expect(service.watchedFilesChanged([{ uri: 'file:///ws/new.playbook.yml', type: 3 }])).toBe(true);
    expect(service.validate().onDisk.size).toBe(0);
  });

  it("keep the client's spelling of a URI", () => {
    const service = new PlaybookLanguageService(memoryFs({}));
    const spelt = 'file:///ws/playbooks/a%20b.yml';
    service.openDocument('file:///ws/playbooks/a b.yml'.replace(' ', '%20'), BASE, 1);
    const key = service.keyOf(spelt);
    expect(service.clientUriOf(key)).toBe(spelt);
    expect(service.changeDocument(spelt, BASE, 1)).toBe(false);
    expect(service.changeDocument(spelt, `${BASE}\n`, 2)).toBe(true);
  });
});

describe('features, in LSP types', () => {
  it('hover, completion, definition, references and highlights at a position', () => {
    const { service, position } = serviceWith(BASE.replace('${{ inputs.task }}', '${{ inputs.ta<|>sk }}'));
    expect(service.hover(URI, position)?.contents).toMatchObject({ kind: 'markdown' });
    expect(service.hover(URI, position)?.contents).toMatchObject({
      value: expect.stringContaining('inputs.task'),
    });
    const completion = service.completion(URI, position)!;
    expect(completion.isIncomplete).toBe(false);
    expect(completion.items.map((i) => i.label)).toEqual(expect.arrayContaining(['task', 'strict']));
    const definition = service.definition(URI, position)!;
    expect(definition.uri).toBe(URI);
    expect(definition.range.start.line).toBe(3);
    const references = service.references(URI, position, true);
    expect(references.length).toBeGreaterThanOrEqual(2);
    expect(references.every((r) => r.uri === URI)).toBe(true);
    expect(service.documentHighlights(URI, position).length).toBeGreaterThanOrEqual(1);
  });

  it('renames, or refuses with a reason the server answers as an error', () => {
    const { service, position } = serviceWith(BASE.replace('  plan:\n', '  pl<|>an:\n'));
    const prepared = service.prepareRename(URI, position);
    expect(prepared).toMatchObject({ placeholder: 'plan' });
    const edit = service.rename(URI, position, 'design');
    expect(isRefusal(edit)).toBe(false);
    expect(Object.keys((edit as { changes: Record<string, unknown[]> }).changes)).toEqual([URI]);
    const refused = service.rename(URI, position, 'build');
    expect(isRefusal(refused) && refused.refused).toMatch(/build/);
  });

  it('outline (nested, or flat with containers), semantic tokens, folding ranges, quick fixes', () => {
    const { service } = serviceWith(BASE.replace('needs: [plan]', 'needs: [plna]'));
    const nested = service.documentSymbols(URI);
    expect(nested.map((s) => s.name)).toEqual(expect.arrayContaining(['steps']));
    const flat = service.documentSymbols(URI, false);
    expect(flat.find((s) => s.name === 'plan')).toMatchObject({ containerName: 'steps' });
    expect(service.semanticTokens(URI).data.length % 5).toBe(0);
    expect(service.semanticTokens(URI).data.length).toBeGreaterThan(0);
    expect(service.foldingRanges(URI).length).toBeGreaterThan(0);
    const diagnostics = service.validate().open.get(URI)!;
    const needs = diagnostics.find((d) => d.code === 'PB200')!;
    const fixes = service.codeActions(URI, needs.range, { diagnostics: [needs] });
    expect(fixes.map((f) => f.title)).toEqual(expect.arrayContaining([expect.stringContaining('plan')]));
    expect(service.codeActions(URI, needs.range, { diagnostics: [needs], only: ['refactor'] })).toEqual([]);
  });

  it('answers empty for a document it does not have open', () => {
    const { service } = serviceWith(BASE);
    const other = 'file:///ws/playbooks/closed.yml';
    const at = { line: 0, character: 0 };
    expect(service.hover(other, at)).toBeNull();
    expect(service.completion(other, at)).toBeNull();
    expect(service.references(other, at, true)).toEqual([]);
    expect(service.documentSymbols(other)).toEqual([]);
    expect(service.semanticTokens(other)).toEqual({ data: [] });
    expect(service.graph(other)).toMatchObject({ kind: 'none' });
  });
});

describe('the graph', () => {
  it('of a playbook without errors: steps in rows, needs, loops, written-back conditions', () => {
    const { service } = serviceWith(BASE);
    const graph = service.graph(URI);
    if (graph.kind !== 'graph') throw new Error(JSON.stringify(graph));
    expect(graph).toMatchObject({ file: 'playbooks/pb.yml', title: 'Test', rows: 4 });
    expect(graph.steps.map((s) => [s.name, s.row, s.kind])).toEqual([
      ['plan', 0, 'agent'],
      ['build', 1, 'agent'],
      ['qa', 2, 'check'],
      ['review', 3, 'agent'],
    ]);
    expect(graph.steps[3]).toMatchObject({ role: 'sec', when: 'inputs.strict', line: 26, character: 3 });
    expect(graph.edges).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
    ]);
    expect(graph.loops).toEqual([{ from: 3, to: 1, outcome: 'changes', max: 3, exhausted: 'fail' }]);
    // The same answer while the text is the same (compiled once per analysis).
    expect(service.graph(URI)).toBe(graph);
  });

  it('of a playbook with errors: the counts and the first problems, errors first', () => {
    const { service } = serviceWith(BASE.replace('needs: [plan]', 'needs: [plna]'));
    const answer = service.graph(URI);
    expect(answer).toMatchObject({ kind: 'problems', file: 'playbooks/pb.yml', errors: 1 });
    expect(answer.kind === 'problems' && answer.problems[0]).toMatchObject({
      code: 'PB200',
      severity: 'error',
      line: 17,
      column: 13,
    });
  });

  it('of a playbook test: none', () => {
    const service = new PlaybookLanguageService(memoryFs({}));
    service.openDocument('file:///ws/playbooks/pb.test.yml', 'inputs: {}\n', 1);
    expect(service.graph('file:///ws/playbooks/pb.test.yml')).toMatchObject({
      kind: 'none',
      message: expect.stringContaining('playbook test'),
    });
  });
});

describe('playbook files', () => {
  it('are those check discovers, among the URIs given, in their order', () => {
    const service = new PlaybookLanguageService(memoryFs({}));
    expect(
      service.playbookFiles([
        'file:///ws/playbooks/b.yml',
        'file:///ws/a.playbook.yaml',
        'file:///ws/playbooks/b.test.yml',
        'file:///ws/notes.yml',
        'untitled:Untitled-1',
        'vscode-vfs://github/x/playbooks/c.yml',
        'not a uri',
      ]),
    ).toEqual([
      'file:///ws/playbooks/b.yml',
      'file:///ws/a.playbook.yaml',
      'vscode-vfs://github/x/playbooks/c.yml',
    ]);
  });
});
