/**
 * Playbook tests (`NAME.test.yml`) in the language server: the compiler's diagnostics (the same as
 * `check`'s), completion of the names their playbook declares, hover on them, and a rename in the playbook
 * that renames them in its tests too.
 */
import { describe, expect, it } from 'vitest';
import type { CompletionItem, Hover, TextEdit, WorkspaceEdit } from 'vscode-languageserver-types';
import { SourceText, validateWorkspace } from '@kairoku-playbook/compiler';
import { PlaybookLanguageService, isRefusal } from '../../src/service/language-service.js';
import { withCursor } from '../support/cursor.js';
import { memoryFs } from '../support/memory-fs.js';

const PLAYBOOK = `version: 1
title: Implement and ship
inputs:
  task: { type: string, description: What to build }
steps:
  implement:
    role: implementer
    prompt: \${{ inputs.task }}
    outputs: { branch: string }
  review:
    needs: implement
    role: reviewer
    prompt: Review \${{ steps.implement.outputs.branch }}.
    outcomes:
      approved: next
      changes_requested: { loop: implement, max: 3 }
  ship:
    needs: review
    gate:
      title: Ship?
      choices: { approve: next, reject: fail }
`;

const ROOT = '/ws';
const PLAYBOOK_URI = 'file:///ws/playbooks/ship.yml';
const TEST_URI = 'file:///ws/playbooks/ship.test.yml';

function serviceWith(test: string, onDisk: Record<string, string> = {}) {
  const service = new PlaybookLanguageService(memoryFs({ '/ws/playbooks/ship.yml': PLAYBOOK, ...onDisk }));
  service.setFolders([{ uri: `file://${ROOT}`, name: 'ws' }]);
  const walk = service.startDiscovery();
  walk.advance(() => false);
  walk.finish();
  const { text, offset } = test.includes('<|>') ? withCursor(test) : { text: test, offset: 0 };
  service.openDocument(TEST_URI, text, 1);
  return { service, text, position: new SourceText(text).positionAt(offset) };
}

const labels = (list: { items: CompletionItem[] } | null) => list?.items.map((i) => i.label) ?? [];

describe('a playbook test in the language server', () => {
  it("gets the compiler's diagnostics, as check gives them", () => {
    const test = 'inputs: { tsk: x }\nsteps:\n  review:\n    - { outcome: aproved }\n';
    const { service } = serviceWith(test);
    const diagnostics = service.validate().open.get(TEST_URI)!;
    const expected = validateWorkspace([
      { file: 'playbooks/ship.yml', text: PLAYBOOK },
      { file: 'playbooks/ship.test.yml', text: test },
    ]).diagnostics.filter((d) => d.file === 'playbooks/ship.test.yml');
    expect(diagnostics.map((d) => [d.code, d.message])).toEqual(expected.map((d) => [d.code, d.message]));
    expect(diagnostics.map((d) => d.code)).toEqual(['PB809', 'PB805']);
    expect(diagnostics[1]!.range).toEqual({
      start: { line: 3, character: 17 },
      end: { line: 3, character: 24 },
    });
  });

  it('of a playbook discovery does not find is checked against it, read from disk', () => {
    const service = new PlaybookLanguageService(memoryFs({ '/ws/tools/x.yml': PLAYBOOK }));
    service.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    service.openDocument('file:///ws/tools/x.test.yml', 'inputs: { task: x }\nsteps:\n  implemnt: []\n', 1);
    expect(
      service
        .validate()
        .open.get('file:///ws/tools/x.test.yml')!
        .map((d) => d.code),
    ).toEqual(['PB803']);
  });

  it("of a playbook with errors: PB802, whose hint names the check as check's own does", () => {
    const broken = { '/ws/playbooks/ship.yml': PLAYBOOK.replace('role: reviewer', 'role: reviwer') };
    const hint = (manifest: Record<string, string>) =>
      serviceWith('steps: {}\n', { ...broken, ...manifest })
        .service.validate()
        .open.get(TEST_URI)!
        .map((d) => d.message);
    expect(hint({})).toEqual([
      expect.stringMatching(/fix it first \(kairoku-playbook check playbooks\/ship\.yml\)$/),
    ]);
    const installed = { '/ws/package.json': '{ "devDependencies": { "kairoku-playbook": "^0.1.0" } }' };
    expect(hint(installed)).toEqual([
      expect.stringMatching(/fix it first \(npx kairoku-playbook check playbooks\/ship\.yml\)$/),
    ]);
  });

  it('without a playbook beside it: PB801', () => {
    const service = new PlaybookLanguageService(memoryFs({}));
    service.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
    service.openDocument('file:///ws/playbooks/gone.test.yml', 'name: x\n', 1);
    expect(
      service
        .validate()
        .open.get('file:///ws/playbooks/gone.test.yml')!
        .map((d) => d.code),
    ).toEqual(['PB801']);
  });

  it('completes steps, gates, inputs, outcomes, choices and keys', () => {
    const at = (test: string) => {
      const { service, position } = serviceWith(test);
      service.validate();
      return labels(service.completion(TEST_URI, position));
    };
    expect(at('<|>')).toEqual(expect.arrayContaining(['inputs', 'steps', 'gates', 'expect']));
    expect(at('steps:\n  <|>')).toEqual(['implement', 'review']);
    expect(at('gates:\n  <|>')).toEqual(['ship']);
    expect(at('inputs:\n  <|>')).toEqual(['task']);
    expect(at('steps:\n  review:\n    - outcome: <|>')).toEqual(['approved', 'changes_requested']);
    expect(at('gates:\n  ship:\n    - choice: <|>')).toEqual(['approve', 'reject']);
    expect(at('steps:\n  implement:\n    - outputs:\n        <|>')).toEqual(['branch']);
    expect(at('expect:\n  steps:\n    review:\n      attempts: [<|>]')).toEqual([
      'approved',
      'changes_requested',
    ]);
  });

  it('describes the names it uses on hover', () => {
    const { service, position } = serviceWith('steps:\n  rev<|>iew:\n    - { outcome: approved }\n');
    service.validate();
    const hover = service.hover(TEST_URI, position) as Hover;
    expect((hover.contents as { value: string }).value).toContain('review');
    expect((hover.contents as { value: string }).value).toContain('playbooks/ship.yml');
    expect(hover.range).toEqual({ start: { line: 1, character: 2 }, end: { line: 1, character: 8 } });
  });

  it('is renamed with the playbook: a step, an outcome, an input, a choice', () => {
    const test = [
      'inputs: { task: x }',
      'steps:',
      '  review:',
      '    - { outcome: changes_requested }',
      '    - { outcome: approved }',
      'gates:',
      '  ship: [{ choice: approve }]',
      'expect:',
      '  steps: { review: { attempts: [changes_requested, approved] } }',
      '  loops: { review.changes_requested: 1 }',
      '',
    ].join('\n');
    const { service } = serviceWith(test);
    service.openDocument(PLAYBOOK_URI, PLAYBOOK, 1);
    service.validate();
    const renameAt = (needle: string, newName: string) => {
      const offset = PLAYBOOK.indexOf(needle);
      const edit = service.rename(PLAYBOOK_URI, new SourceText(PLAYBOOK).positionAt(offset), newName);
      expect(isRefusal(edit)).toBe(false);
      return apply(test, ((edit as WorkspaceEdit).changes ?? {})[TEST_URI] ?? []);
    };
    expect(renameAt('review:', 'check_it')).toBe(test.replaceAll('review', 'check_it'));
    expect(renameAt('approved:', 'lgtm')).toBe(test.replaceAll('approved', 'lgtm'));
    expect(renameAt('task: {', 'goal')).toBe(test.replace('task', 'goal'));
    expect(renameAt('approve: next', 'go')).toBe(test.replace('choice: approve', 'choice: go'));
  });
});

function apply(text: string, edits: readonly TextEdit[]): string {
  const source = new SourceText(text);
  let result = text;
  for (const edit of [...edits].sort(
    (a, b) => source.offsetAt(b.range.start) - source.offsetAt(a.range.start),
  ))
    result =
      result.slice(0, source.offsetAt(edit.range.start)) +
      edit.newText +
      result.slice(source.offsetAt(edit.range.end));
  return result;
}
