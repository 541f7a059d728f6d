/**
 * Playbook tests (`NAME.test.yml` beside `NAME.yml`) in the editor: completion of the names their playbook
 * declares (steps, after-tasks, gates, inputs, outputs, outcomes, choices) and of the test's own keys,
 * hover on each name (what the playbook declares), and the edits a rename in the playbook makes in its
 * tests. The names a test uses are the compiler's (`TestFileAnalysis.sites`), as its diagnostics read them.
 */
import type { FileAnalysis, StepDecl, TestFileAnalysis, TestSite } from '@kairoku-playbook/compiler';
import { describeStep } from '../language/describe.js';
import type { OffsetEdit, OffsetRange } from '../language/types.js';
import { yamlCursorAt } from '../language/yaml-cursor.js';
import type { CompletionEntry } from './completion.js';
import type { HoverResult } from './hover.js';

const TOP_KEYS: Record<string, string> = {
  name: 'What the test shows; `kairoku-playbook test` prints it.',
  inputs: "The run's inputs, by name.",
  steps: 'Per step, its reports on successive attempts: `- { outcome: …, outputs: { … } }`.',
  after: 'Per after-task, its reports on successive attempts.',
  gates: 'Per gate, the decisions on its successive openings: `- { choice: … }`.',
  expect: 'What the run must end with: `status`, `steps`, `after`, `loops`, `outputs`.',
};
const EXPECT_KEYS: Record<string, string> = {
  status: "The run's status at its end.",
  steps: 'Per step, its `attempts` (a count, or the list of outcomes) and `status`.',
  after: 'Per after-task, its `attempts` and `status`.',
  loops: 'Loop counters, keyed `STEP.OUTCOME`.',
  outputs: "The playbook's outputs, by name.",
};
const REPORT_KEYS: Record<string, string> = {
  outcome: 'One of the step’s outcomes.',
  summary: 'The report’s summary.',
  outputs: 'The step’s outputs, by name.',
  silent: 'The agent ends its turn without reporting: it is lost.',
};
const DECISION_KEYS: Record<string, string> = { choice: 'One of the gate’s choices.', comment: 'A comment.' };
const RUN_STATUSES = ['running', 'paused', 'completed', 'failed', 'canceled'];

function stepOf(playbook: FileAnalysis, name: string, after: boolean): StepDecl | undefined {
  const model = playbook.model;
  return after ? model?.after.find((s) => s.name === name) : model?.stepByName.get(name);
}

/** Completion in a playbook test at `offset`. */
export function testCompletionsAt(
  test: TestFileAnalysis,
  playbook: FileAnalysis | undefined,
  offset: number,
): CompletionEntry[] {
  const cursor = yamlCursorAt(test.text, offset);
  if (!cursor) return [];
  const range: OffsetRange = { start: cursor.word.start, end: cursor.word.end };
  const entries: CompletionEntry[] = [];
  const add = (label: string, kind: CompletionEntry['kind'], documentation?: string, detail?: string) => {
    if (cursor.siblings.includes(label) && cursor.position === 'key') return;
    const entry: CompletionEntry = { label, kind, insertText: label, range };
    if (documentation) entry.documentation = documentation;
    if (detail) entry.detail = detail;
    entries.push(entry);
  };
  const keys = (table: Record<string, string>) => {
    for (const [key, doc] of Object.entries(table)) add(key, 'key', doc);
  };
  const model = playbook?.model;
  // (a key after a list item's dash, `- outcome: |`, is not in the cursor's path: read it off the line)
  const linePrefix = test.text.slice(test.text.lastIndexOf('\n', offset - 1) + 1, offset);
  const lineKey = /([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:[ \t]*[A-Za-z0-9_-]*$/.exec(linePrefix)?.[1];
  const path =
    cursor.position === 'value' && lineKey !== undefined && cursor.path[cursor.path.length - 1] !== lineKey
      ? [...cursor.path, lineKey]
      : cursor.path;
  const steps = (after: boolean, gates: boolean | undefined) => {
    for (const step of after ? (model?.after ?? []) : (model?.steps ?? []))
      if (gates === undefined || (step.kind === 'gate') === gates)
        add(step.name, 'step', playbook ? describeStep(playbook, step) : undefined);
  };
  const outcomes = (step: StepDecl | undefined) => {
    for (const outcome of step?.outcomes ?? []) add(outcome.name, 'outcome');
  };
  const outputs = (step: StepDecl | undefined) => {
    for (const output of step?.outputs ?? []) add(output.name, 'output');
  };
  const [top, second, third, fourth] = path;
  if (cursor.position === 'key') {
    if (path.length === 0) keys(TOP_KEYS);
    else if (top === 'inputs' && path.length === 1)
      for (const input of model?.inputs ?? []) add(input.name, 'input', input.description);
    else if ((top === 'steps' || top === 'after') && path.length === 1)
      steps(top === 'after', top === 'steps' ? false : undefined);
    else if (top === 'gates' && path.length === 1) steps(false, true);
    else if ((top === 'steps' || top === 'after') && path.length === 2) keys(REPORT_KEYS);
    else if ((top === 'steps' || top === 'after') && third === 'outputs')
      outputs(stepOf(playbook!, second!, top === 'after'));
    else if (top === 'gates' && path.length === 2) keys(DECISION_KEYS);
    else if (top === 'expect' && path.length === 1) keys(EXPECT_KEYS);
    else if (top === 'expect' && (second === 'steps' || second === 'after') && path.length === 2)
      steps(second === 'after', undefined);
    else if (top === 'expect' && (second === 'steps' || second === 'after') && path.length === 3) {
      add('attempts', 'key', 'How many attempts, or the outcome of each.');
      add('status', 'key', "The step's status at the run's end.");
    } else if (top === 'expect' && second === 'outputs' && path.length === 2)
      for (const output of model?.outputs ?? []) add(output.name, 'output');
    return playbook || path.length <= 1 ? entries : [];
  }
  // values
  if ((top === 'steps' || top === 'after') && third === 'outcome')
    outcomes(stepOf(playbook!, second!, top === 'after'));
  else if (top === 'gates' && third === 'choice') outcomes(stepOf(playbook!, second!, false));
  else if (top === 'expect' && path.length === 1 && second === undefined) {
    // (nothing: a value of `expect` is a mapping)
  } else if (top === 'expect' && second === 'status') for (const status of RUN_STATUSES) add(status, 'value');
  else if (top === 'expect' && (second === 'steps' || second === 'after') && fourth === 'attempts')
    outcomes(stepOf(playbook!, third!, second === 'after'));
  return playbook ? entries : [];
}

/** The site of the test under the cursor. */
function siteAt(test: TestFileAnalysis, offset: number): TestSite | undefined {
  return test.sites.find((s) => s.range.start <= offset && offset <= s.range.end);
}

/** Hover on a name a playbook test uses: what its playbook declares under that name. */
export function testHoverAt(
  test: TestFileAnalysis,
  playbook: FileAnalysis | undefined,
  offset: number,
): HoverResult | undefined {
  const site = siteAt(test, offset);
  const model = playbook?.model;
  if (!site || !playbook || !model) return undefined;
  const where = `in ${'`'}${playbook.file}${'`'}`;
  switch (site.kind) {
    case 'step':
    case 'gate': {
      const step = stepOf(playbook, site.name, site.kind === 'step' && site.after);
      return step
        ? { range: site.range, contents: `${describeStep(playbook, step)}\n\n${where}` }
        : undefined;
    }
    case 'input': {
      const input = model.inputs.find((i) => i.name === site.name);
      if (!input) return undefined;
      const type = input.typeText?.value ?? 'string';
      const lines = [`**input** \`${input.name}\`: \`${type}\``];
      if (input.description) lines.push(input.description);
      lines.push(where);
      return { range: site.range, contents: lines.join('\n\n') };
    }
    case 'output': {
      if (site.step === undefined) {
        const output = model.outputs.find((o) => o.name === site.name);
        return output
          ? { range: site.range, contents: `**playbook output** \`${output.name}\`\n\n${where}` }
          : undefined;
      }
      const output = stepOf(playbook, site.step, site.after)?.outputs.find((o) => o.name === site.name);
      if (!output) return undefined;
      const lines = [
        `**output** \`${output.name}\` of \`${site.step}\`: \`${output.typeText?.value ?? '?'}\``,
      ];
      if (output.description) lines.push(output.description);
      lines.push(where);
      return { range: site.range, contents: lines.join('\n\n') };
    }
    case 'outcome':
    case 'choice': {
      const owner =
        site.kind === 'outcome'
          ? stepOf(playbook, site.step, site.after)
          : stepOf(playbook, site.gate, false);
      const outcome = owner?.outcomes.find((o) => o.name === site.name);
      if (!owner || !outcome) return undefined;
      const word = owner.kind === 'gate' ? 'choice' : 'outcome';
      return {
        range: site.range,
        contents: `**${word}** \`${outcome.name}\` of \`${owner.name}\`\n\n${where}`,
      };
    }
  }
}

/** What a rename in the playbook renames in a test. */
export type RenamedName =
  | { kind: 'step'; name: string; after: boolean }
  | { kind: 'input'; name: string }
  | { kind: 'output'; name: string; step: string; after: boolean }
  | { kind: 'outcome'; name: string; step: string; after: boolean };

/** The edits renaming `renamed` to `newName` makes in a playbook test of its playbook. */
export function testRenameEdits(test: TestFileAnalysis, renamed: RenamedName, newName: string): OffsetEdit[] {
  const edits: OffsetEdit[] = [];
  for (const site of test.sites) {
    let hit = false;
    switch (renamed.kind) {
      case 'step':
        hit =
          (site.kind === 'step' && site.after === renamed.after && site.name === renamed.name) ||
          (!renamed.after && site.kind === 'gate' && site.name === renamed.name);
        break;
      case 'input':
        hit = site.kind === 'input' && site.name === renamed.name;
        break;
      case 'output':
        hit =
          site.kind === 'output' &&
          site.step === renamed.step &&
          site.after === renamed.after &&
          site.name === renamed.name;
        break;
      case 'outcome':
        hit =
          (site.kind === 'outcome' &&
            site.step === renamed.step &&
            site.after === renamed.after &&
            site.name === renamed.name) ||
          (!renamed.after &&
            site.kind === 'choice' &&
            site.gate === renamed.step &&
            site.name === renamed.name);
        break;
    }
    // (only a name written as its characters: one with escapes is left for a person)
    if (hit && test.text.slice(site.range.start, site.range.end) === site.name)
      edits.push({ range: site.range, newText: newName });
  }
  return edits.sort((a, b) => a.range.start - b.range.start);
}
