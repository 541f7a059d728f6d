/**
 * Every feature on broken input: the fixtures (most of them wrong on purpose) and random mutations of them,
 * at random offsets. No feature may throw, and every range must lie inside the text.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileAnalysis } from '@kairoku-playbook/compiler';
import { codeActionsFor } from '../../../src/service/features/code-actions.js';
import { completionsAt } from '../../../src/service/features/completion.js';
import { definitionAt } from '../../../src/service/features/definition.js';
import { highlightsAt } from '../../../src/service/features/document-highlights.js';
import { documentSymbols } from '../../../src/service/features/document-symbols.js';
import { foldingRanges } from '../../../src/service/features/folding-ranges.js';
import { hoverAt } from '../../../src/service/features/hover.js';
import { referencesAt } from '../../../src/service/features/references.js';
import { prepareRenameAt, renameAt } from '../../../src/service/features/rename.js';
import { semanticTokens } from '../../../src/service/features/semantic-tokens.js';
import { analyze } from '../../support/cursor.js';
import { Random, randomEdit } from '../../support/random.js';

const REPO = new URL('../../../../', import.meta.url).pathname;

function samples(): string[] {
  const texts: string[] = [];
  for (const folder of ['playbooks', 'test/fixtures/ok', 'test/fixtures/err']) {
    for (const name of readdirSync(join(REPO, folder)).sort()) {
      if (/\.ya?ml$/.test(name)) texts.push(readFileSync(join(REPO, folder, name), 'utf8'));
    }
  }
  return texts;
}

function inside(analysis: FileAnalysis, range: { start: number; end: number }): void {
  expect(range.start).toBeGreaterThanOrEqual(0);
  expect(range.end).toBeGreaterThanOrEqual(range.start);
  expect(range.end).toBeLessThanOrEqual(analysis.text.length);
}

function exercise(analysis: FileAnalysis, offsets: number[]): void {
  for (const offset of offsets) {
    for (const entry of completionsAt(analysis, offset)) inside(analysis, entry.range);
    const hover = hoverAt(analysis, offset);
    if (hover) inside(analysis, hover.range);
    const definition = definitionAt(analysis, offset);
    if (definition) inside(analysis, definition.target);
    for (const range of referencesAt(analysis, offset, true)) inside(analysis, range);
    highlightsAt(analysis, offset);
    prepareRenameAt(analysis, offset);
    const renamed = renameAt(analysis, offset, 'fresh-name');
    if ('edits' in renamed) for (const edit of renamed.edits) inside(analysis, edit.range);
  }
  documentSymbols(analysis);
  for (const token of semanticTokens(analysis)) inside(analysis, token.range);
  foldingRanges(analysis);
  for (const action of codeActionsFor(analysis, analysis.diagnostics))
    for (const edit of action.edits) inside(analysis, edit.range);
}

describe('features on broken input', () => {
  const texts = samples();

  it('never throw on the fixtures, at every tenth offset', () => {
    for (const text of texts) {
      const analysis = analyze(text);
      const offsets = Array.from({ length: Math.ceil(text.length / 10) + 1 }, (_, i) =>
        Math.min(text.length, i * 10),
      );
      exercise(analysis, offsets);
    }
  }, 120_000);

  it('never throw on 1500 random mutations', () => {
    const random = new Random(7);
    for (let round = 0; round < 1500; round++) {
      let text = random.pick(texts);
      for (let n = 1 + random.int(4); n > 0; n--) {
        const edit = randomEdit(random, text);
        text = text.slice(0, edit.start) + edit.insert + text.slice(edit.end);
      }
      const analysis = analyze(text);
      exercise(analysis, [
        random.int(text.length + 1),
        random.int(text.length + 1),
        random.int(text.length + 1),
      ]);
    }
  }, 120_000);
});
