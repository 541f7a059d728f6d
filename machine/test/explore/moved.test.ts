/**
 * `movedExploration`: after an edit inside a template no run depends on, the previous exploration moved
 * with the text is what exploring the new text gives (deep equal: findings, their ranges, suppressions,
 * counts). Seeded chained edits, as the language server gets them (each edit's analysis from the last one's,
 * compiler/test/incremental.test.ts's generator in small), on the sample playbooks and the ok fixtures.
 * Explorations are bounded by states, not time, so both sides are deterministic, cut ones included.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { analyzeChange, analyzeFile, templateEditOf } from '@kairoku-playbook/compiler';
import type { FileAnalysis, TextChange } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { explorePlaybook, isExplored, movedExploration } from '../../src/explore/check.js';
import type { ExploredPlaybook } from '../../src/explore/check.js';
import { prng } from '../../../test/support/random.js';
import { repo } from '../helpers.js';

const OPTIONS = { maxStates: 2_000 };

function samples(dir: string): { file: string; text: string }[] {
  return readdirSync(`${repo}${dir}`)
    .filter((name) => /\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
    .sort()
    .map((name) => ({ file: `${dir}/${name}`, text: readFileSync(`${repo}${dir}/${name}`, 'utf8') }));
}

/** An edit inside a template (most of them) or anywhere: typing, deleting, a reference pasted. */
function nextEdit(analysis: FileAnalysis, next: () => number): TextChange {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  const templates = analysis.semantic?.templates ?? [];
  const text = analysis.text;
  let start = Math.floor(next() * (text.length + 1));
  if (templates.length && next() < 0.9) {
    const [from, to] = pick(templates).text.node.range ?? [0, 0];
    start = Math.min(text.length, from + 1 + Math.floor(next() * Math.max(1, to - from)));
  }
  const input = analysis.model?.inputs.length ? pick(analysis.model.inputs).name : 'nope';
  const roll = next();
  if (roll < 0.5) return { start, end: start, text: pick(['x', 'e', ' ', '.', ':', '\n', '#', '}']) };
  if (roll < 0.8) return { start, end: Math.min(text.length, start + 1 + Math.floor(next() * 8)), text: '' };
  return { start, end: start, text: ` \${{ inputs.${input} }}` };
}

const hasErrors = (analysis: FileAnalysis) => analysis.diagnostics.some((d) => d.severity === 'error');

/** `count` chained edits of one playbook; how many took the moved exploration. */
function check(file: string, text: string, count: number, seed: number): number {
  const next = prng(seed);
  let analysis = analyzeFile(file, text);
  let explored: ExploredPlaybook | undefined = hasErrors(analysis)
    ? undefined
    : explorePlaybook(file, text, OPTIONS);
  let moved = 0;
  for (let i = 0; i < count; i++) {
    const before = analysis.text;
    const change = nextEdit(analysis, next);
    analysis = analyzeChange(analysis, change).analysis;
    if (!isExplored(file, hasErrors(analysis))) {
      explored = undefined;
      continue;
    }
    const fresh = explorePlaybook(file, analysis.text, OPTIONS);
    const edit = templateEditOf(analysis);
    const reused =
      explored && edit && edit.before === before
        ? movedExploration(explored, analysis.text, edit)
        : undefined;
    if (reused) {
      moved++;
      expect(reused, `${file}, edit ${i + 1} (${JSON.stringify(change)}, in a ${edit!.place})`).toEqual(
        fresh,
      );
    }
    explored = fresh;
  }
  return moved;
}

describe('an exploration moved with an edit inside a template is the new text explored', () => {
  it('after chained seeded edits of the sample playbooks and the ok fixtures', () => {
    let moved = 0;
    samples('playbooks').forEach(({ file, text }, n) => (moved += check(file, text, 12, 7000 + n)));
    samples('test/fixtures/ok').forEach(({ file, text }, n) => (moved += check(file, text, 2, 8000 + n)));
    // (the edits inside prompts, commands and titles that keep the playbook clean: 74 of the 278 with these seeds)
    expect(moved).toBeGreaterThan(60);
  });

  it('but not after an edit of a `feedback` or a `when`, whose text a run may depend on', () => {
    const found: ExploredPlaybook = {
      diagnostics: [],
      used: [],
      found: [],
      complete: true,
      states: 1,
      maxStates: 1,
      outOfTime: false,
      bounds: {
        explored: true,
        agentTurns: 0,
        gateDecisions: 0,
        chainTurns: 0,
        longestMs: 0,
        perInput: [],
        units: [],
      },
    };
    const change = { start: 1, end: 1, text: 'x' };
    expect(movedExploration(found, 'x', { change, place: 'feedback' })).toBeUndefined();
    expect(movedExploration(found, 'x', { change, place: 'when' })).toBeUndefined();
    expect(movedExploration(found, 'x', { change, place: 'prompt' })).toEqual(found);
  });
});
