/**
 * An edit's analysis (`analyzeChange`) gives exactly what a full analysis of the new text gives: the same
 * diagnostics (deep equal), and the same references at the same ranges (what the editor's features read).
 * Seeded edits, hundreds of them, chained (each edit's analysis is the next one's previous), on the fixtures,
 * the sample playbooks and generated playbooks: typing, deleting and pasting inside templates (the
 * incremental path) and anywhere else (the full one).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '../src/compile.js';
import type { FileAnalysis } from '../src/compile.js';
import { analyzeChange, changeBetween } from '../src/incremental.js';
import { validateWorkspace } from '../src/validate.js';
import type { TextChange } from '../src/incremental.js';
import { generatePlaybook } from '../../bench/generate.mjs';
import { prng } from '../../test/support/random.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): { file: string; text: string }[] {
  return readdirSync(join(ROOT, dir))
    .filter((name) => /\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
    .sort()
    .map((name) => ({ file: `${dir}/${name}`, text: readFileSync(join(ROOT, dir, name), 'utf8') }));
}

const TYPED = [
  'x',
  'e',
  ' ',
  '.',
  '$',
  '{',
  '}',
  "'",
  '"',
  '#',
  ':',
  '\n',
  '|',
  '(',
  ')',
  '!',
  '=',
  '-',
  '\t',
  'é',
];

/** One seeded edit: mostly inside a template (where the fast path is), sometimes anywhere. */
function nextEdit(analysis: FileAnalysis, next: () => number): TextChange {
  const text = analysis.text;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const templates = analysis.semantic?.templates ?? [];
  let start: number;
  let end: number;
  if (templates.length && next() < 0.85) {
    const range = pick(templates).text.node.range ?? [0, 0, 0];
    start = range[0] + 1 + Math.floor(next() * Math.max(1, range[1] - range[0]));
    start = Math.min(start, text.length);
  } else start = Math.floor(next() * (text.length + 1));
  end = start;
  const model = analysis.model;
  const step = model?.steps.length ? pick(model.steps) : undefined;
  const output = step?.outputs.length ? pick(step.outputs).name : 'nope';
  const input = model?.inputs.length ? pick(model.inputs).name : 'nope';
  const roll = next();
  let inserted: string;
  if (roll < 0.45) inserted = pick(TYPED);
  else if (roll < 0.65) {
    inserted = '';
    end = Math.min(text.length, start + 1 + Math.floor(next() * 12));
  } else if (roll < 0.75) inserted = ` \${{ inputs.${input} }}`;
  else if (roll < 0.85) inserted = ` \${{ steps.${step?.name ?? 'nope'}.outputs.${output} }}`;
  else if (roll < 0.9)
    inserted = pick([
      ' ${{ ',
      ' }}',
      ' ${{ len( }}',
      " ${{ steps.x.outcome == 'y' }}",
      ' ${{ report.summary }}',
    ]);
  else {
    inserted = pick(['x', '']);
    end = Math.min(text.length, start + Math.floor(next() * 3));
  }
  return { start, end, text: inserted };
}

function referencesOf(analysis: FileAnalysis): unknown[] {
  return (analysis.semantic?.references ?? []).map((r) => [r.kind, r.range.start, r.range.end]);
}

/**
 * Applies `count` chained edits; returns how many took the incremental path. With `undoBreaks`, an edit
 * that breaks the YAML (PB100) is undone by the next one, as a person would: the file stays mostly whole,
 * where the incremental path is.
 */
function check(file: string, text: string, count: number, seed: number, undoBreaks = false): number {
  const next = prng(seed);
  let analysis = analyzeFile(file, text);
  let incremental = 0;
  let undo: TextChange | undefined;
  for (let i = 0; i < count; i++) {
    const change = undo ?? nextEdit(analysis, next);
    const removed = analysis.text.slice(change.start, change.end);
    const returned = analysis.diagnostics;
    const shown = JSON.stringify(returned);
    const result = analyzeChange(analysis, change);
    // (the previous analysis is taken over, but the diagnostics it returned stay as they were)
    expect(JSON.stringify(returned)).toBe(shown);
    analysis = result.analysis;
    if (result.incremental) incremental++;
    const full = analyzeFile(file, analysis.text);
    const where = `${file}, edit ${i + 1} (${JSON.stringify(change)}), ${result.incremental ? 'incremental' : 'full'}`;
    expect(analysis.diagnostics, where).toEqual(full.diagnostics);
    expect(referencesOf(analysis), where).toEqual(referencesOf(full));
    undo =
      undoBreaks && !undo && full.diagnostics.some((d) => d.code === 'PB100')
        ? { start: change.start, end: change.start + change.text.length, text: removed }
        : undefined;
  }
  return incremental;
}

describe('incremental analysis gives what a full analysis gives', () => {
  const samples = [...files('test/fixtures/ok'), ...files('playbooks'), ...files('test/fixtures/err')];

  it('after 4 chained edits of every fixture and sample (about 1,300 edits)', () => {
    let edits = 0;
    let incremental = 0;
    samples.forEach(({ file, text }, n) => {
      incremental += check(file, text, 4, 1000 + n);
      edits += 4;
    });
    expect(edits).toBeGreaterThan(1200);
    // (most edits are inside a template: the fast path must be the common one, not a rare one)
    expect(incremental / edits).toBeGreaterThan(0.3);
  }, 600_000);

  it('after 200 chained edits of a generated 30-step playbook', () => {
    const incremental = check('playbooks/generated.yml', generatePlaybook(30, 7) as string, 200, 42, true);
    expect(incremental).toBeGreaterThan(70);
  }, 600_000);

  it('in validateWorkspace, from the previous analyses an editor hands it', () => {
    const file = 'playbooks/generated.yml';
    const text = generatePlaybook(20, 5) as string;
    let previous = validateWorkspace([{ file, text }]).analyses;
    let current = text;
    const next = prng(9);
    for (let i = 0; i < 40; i++) {
      const change = nextEdit(previous.get(file)!, next);
      current = current.slice(0, change.start) + change.text + current.slice(change.end);
      const validation = validateWorkspace([{ file, text: current }], previous);
      expect(validation.diagnostics).toEqual(validateWorkspace([{ file, text: current }]).diagnostics);
      previous = validation.analyses;
    }
  });

  it('finds the one change between two texts', () => {
    expect(changeBetween('abcdef', 'abXdef')).toEqual({ start: 2, end: 3, text: 'X' });
    expect(changeBetween('aaa', 'aaaa')).toEqual({ start: 3, end: 3, text: 'a' });
    expect(changeBetween('abc', 'c')).toEqual({ start: 0, end: 2, text: '' });
    expect(changeBetween('', 'x')).toEqual({ start: 0, end: 0, text: 'x' });
  });

  it('after an edit that breaks the YAML and one that mends it', () => {
    const text = generatePlaybook(12, 3) as string;
    const at = text.indexOf('prompt: |') + 'prompt: |'.length + 3;
    let { analysis } = analyzeChange(analyzeFile('p.yml', text), { start: at, end: at, text: '\n  bad: [' });
    expect(analysis.diagnostics).toEqual(analyzeFile('p.yml', analysis.text).diagnostics);
    ({ analysis } = analyzeChange(analysis, { start: at, end: at + '\n  bad: ['.length, text: '' }));
    expect(analysis.diagnostics).toEqual(analyzeFile('p.yml', text).diagnostics);
  });
});
