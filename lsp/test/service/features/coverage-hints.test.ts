/**
 * Coverage hints: with `NAME.coverage.json` beside a playbook (as `test --coverage` writes it), each
 * outcome and choice no test takes is faded with a Hint, and a code action writes a test that takes it.
 */
import { describe, expect, it } from 'vitest';
import type { CodeAction, Diagnostic, TextDocumentEdit } from 'vscode-languageserver-types';
import { compilePlaybook, validateWorkspace } from '@kairoku-playbook/compiler';
import { coverageReport } from '@kairoku-playbook/machine';
import type { CoverageFile, CoverageHits } from '@kairoku-playbook/machine';
import { COVERAGE_SOURCE } from '../../../src/service/coverage.js';
import { PlaybookLanguageService } from '../../../src/service/language-service.js';
import { memoryFs } from '../../support/memory-fs.js';

const PLAYBOOK = `version: 1
title: Implement and ship
inputs:
  task: { type: string, description: What to build }
  reviewers: { type: integer, min: 1 }
steps:
  implement:
    role: implementer
    prompt: \${{ inputs.task }}
  review:
    needs: implement
    role: reviewer
    prompt: Review it.
    outcomes:
      approved: next
      changes_requested: { loop: implement, max: 3 }
  ship:
    needs: review
    gate:
      title: Ship?
      choices: { approve: next, reject: fail }
`;

const URI = 'file:///ws/playbooks/ship.yml';

/** The coverage file of one test that approved at once and shipped. */
function coverageFile(hits: CoverageHits): string {
  const ir = compilePlaybook('playbooks/ship.yml', PLAYBOOK).ir!;
  const file: CoverageFile = {
    coverage: 1,
    sha256: ir.source.sha256,
    ...coverageReport(ir, 'playbooks/ship.yml', hits, 1),
  };
  return JSON.stringify(file);
}

const TAKEN = coverageFile({
  'reached implement': 1,
  'outcome implement done': 1,
  'reached review': 1,
  'outcome review approved': 1,
  'reached ship': 1,
  'outcome ship approve': 1,
});

function service(files: Record<string, string>) {
  const disk: Record<string, string> = { '/ws/playbooks/ship.yml': PLAYBOOK, ...files };
  const svc = new PlaybookLanguageService(memoryFs(disk));
  svc.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
  const walk = svc.startDiscovery();
  walk.advance(() => false);
  walk.finish();
  svc.openDocument(URI, PLAYBOOK, 1);
  return { svc, disk };
}

const hints = (diagnostics: Diagnostic[] | undefined) =>
  (diagnostics ?? []).filter((d) => d.source === COVERAGE_SOURCE);

function textAt(range: Diagnostic['range']): string {
  const line = PLAYBOOK.split('\n')[range.start.line]!;
  return line.slice(range.start.character, range.end.character);
}

describe('coverage hints', () => {
  it('are none without a coverage file beside the playbook', () => {
    const { svc } = service({});
    expect(hints(svc.validate().open.get(URI))).toEqual([]);
  });

  it('fade each declared outcome and choice no test takes, and change none of the diagnostics check gives', () => {
    const without = service({}).svc.validate().open.get(URI);
    const { svc } = service({ '/ws/playbooks/ship.coverage.json': TAKEN });
    const diagnostics = svc.validate().open.get(URI)!;
    expect(diagnostics.filter((d) => d.source !== COVERAGE_SOURCE)).toEqual(without);
    const found = hints(diagnostics);
    // (implement's outcomes are implicit, done and failed: there is no name to fade)
    expect(found.map((d) => [textAt(d.range), d.message, d.severity, d.tags])).toEqual([
      ['changes_requested', 'no test takes this outcome', 4, [1]],
      ['reject', 'no test takes this choice', 4, [1]],
    ]);
  });

  it('follow the coverage file when it changes (a watched file)', () => {
    const { svc, disk } = service({ '/ws/playbooks/ship.coverage.json': TAKEN });
    expect(hints(svc.validate().open.get(URI))).toHaveLength(2);
    disk['/ws/playbooks/ship.coverage.json'] = coverageFile({
      'outcome review approved': 1,
      'outcome review changes_requested': 1,
      'outcome ship approve': 1,
      'outcome ship reject': 1,
    });
    expect(svc.watchedFilesChanged([{ uri: 'file:///ws/playbooks/ship.coverage.json', type: 2 }])).toBe(true);
    expect(hints(svc.validate().open.get(URI))).toEqual([]);
    disk['/ws/playbooks/ship.coverage.json'] = 'not json';
    expect(hints(svc.validate().open.get(URI))).toEqual([]);
  });

  it('offer a code action that writes a test whose scenario takes the outcome, and that checks clean', () => {
    const { svc } = service({ '/ws/playbooks/ship.coverage.json': TAKEN });
    const found = hints(svc.validate().open.get(URI));
    const actions = found.map((hint) => svc.codeActions(URI, hint.range, { diagnostics: [hint] }));
    expect(actions.map((a) => a.map((action: CodeAction) => action.title))).toEqual([
      ['Write a test that takes review: changes_requested (ship.test.yml)'],
      ['Write a test that takes ship: reject (ship.test.yml)'],
    ]);
    const [create, write] = actions[1]![0]!.edit!.documentChanges!;
    expect(create).toEqual({
      kind: 'create',
      uri: 'file:///ws/playbooks/ship.test.yml',
      options: { ignoreIfExists: true },
    });
    const edit = (write as TextDocumentEdit).edits[0]!;
    if (!('newText' in edit))
      throw new Error(`a snippet edit (LSP 3.18), not a text edit: ${JSON.stringify(edit)}`);
    const text = edit.newText;
    expect(text).toBe(
      [
        '# A playbook test of ship.yml that takes ship: reject (format: docs/reference.md,',
        '# "Scenarios and playbook tests"). Run it with: kairoku-playbook test --coverage',
        'name: ship decides reject',
        'inputs:',
        '  task: "a task"',
        '  reviewers: 1',
        'gates:',
        '  ship:',
        '    - { choice: reject }',
        'expect: {} # what the run must do: status, steps (attempts), loops, outputs',
        '',
      ].join('\n'),
    );
    const checked = validateWorkspace([
      { file: 'playbooks/ship.yml', text: PLAYBOOK },
      { file: 'playbooks/ship.test.yml', text },
    ]);
    expect(checked.diagnostics.filter((d) => d.file === 'playbooks/ship.test.yml')).toEqual([]);
  });

  it('offer a named test (NAME.STEP-ARM.test.yml) while the playbook has one, and none once that is there', () => {
    const files: Record<string, string> = {
      '/ws/playbooks/ship.coverage.json': TAKEN,
      '/ws/playbooks/ship.test.yml': 'inputs: { task: x, reviewers: 1 }\nexpect: {}\n',
    };
    const first = service(files).svc;
    const [hint] = hints(first.validate().open.get(URI));
    const [action] = first.codeActions(URI, hint!.range, { diagnostics: [hint!] });
    expect(action?.title).toBe(
      'Write a test that takes review: changes_requested (ship.review-changes_requested.test.yml)',
    );
    const create = action!.edit!.documentChanges![0] as { kind: string; uri: string };
    expect(create).toMatchObject({
      kind: 'create',
      uri: 'file:///ws/playbooks/ship.review-changes_requested.test.yml',
    });
    // the named test is the playbook's (it tests ship.yml) and checks clean
    const edit = action!.edit!.documentChanges![1] as { edits: { newText: string }[] };
    const checked = validateWorkspace([
      { file: 'playbooks/ship.yml', text: PLAYBOOK },
      { file: 'playbooks/ship.review-changes_requested.test.yml', text: edit.edits[0]!.newText },
    ]);
    expect(checked.diagnostics.filter((d) => d.file.endsWith('.test.yml'))).toEqual([]);
    expect(checked.tests.get('playbooks/ship.review-changes_requested.test.yml')).toBeDefined();
    // once written, that test is not offered again
    const second = service({
      ...files,
      '/ws/playbooks/ship.review-changes_requested.test.yml': edit.edits[0]!.newText,
    }).svc;
    const [again] = hints(second.validate().open.get(URI));
    expect(second.codeActions(URI, again!.range, { diagnostics: [again!] })).toEqual([]);
  });
});
