/**
 * The service's explorer (`exploreWithin`): PB310 and PB311 added to the compiler's diagnostics as
 * `check --explore` adds them (suppressions too), each playbook explored again only when its text
 * changes, and a note when the budget runs out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlaybookLanguageService } from '../../src/service/language-service.js';
import { memoryFs } from '../support/memory-fs.js';
import { prng } from '../../../test/support/random.js';

const URI = 'file:///ws/playbooks/pb.yml';
const NEVER = `version: 1
title: Never
steps:
  a:
    role: implementer
    prompt: A
    outcomes: { done: end, failed: fail }
  b: { needs: a, role: implementer, prompt: B }
`;

/** A service with one open document; `budgetMs`: the explorer's (`'off'`: not exploring). */
function open(text: string, budgetMs: number | 'off' = 1_000) {
  const service = new PlaybookLanguageService(memoryFs({}));
  service.setFolders([{ uri: 'file:///ws', name: 'ws' }]);
  service.exploreWithin(budgetMs === 'off' ? undefined : budgetMs);
  service.openDocument(URI, text, 1);
  return service;
}

const codes = (service: PlaybookLanguageService) =>
  service
    .validate()
    .open.get(URI)!
    .map((d) => d.code);

describe('the service explores', () => {
  it('adds PB310 to what the compiler finds, and nothing when off', () => {
    expect(codes(open(NEVER))).toEqual(['PB310']);
    expect(codes(open(NEVER, 'off'))).toEqual([]);
  });

  it('honours `# playbook-ignore PB310`, as check --explore does', () => {
    const text = NEVER.replace(
      '  b: {',
      '  # playbook-ignore PB310 b comes back in the next release\n  b: {',
    );
    expect(codes(open(text))).toEqual([]);
    // (without the explorer nothing looked for PB310, so the comment is not called useless either)
    expect(codes(open(text, 'off'))).toEqual([]);
  });

  it('gives the graph view the worst case of a run once it has explored the text, and none when off', () => {
    const service = open(NEVER);
    expect(service.graph(URI)).not.toHaveProperty('bounds');
    service.validate();
    // a alone: its outcomes end the run, so b never runs (the PB310 above); no gate
    expect(service.graph(URI)).toMatchObject({
      kind: 'graph',
      bounds: { explored: true, agentTurns: 1, gateDecisions: 0, chainTurns: 1 },
    });
    const off = open(NEVER, 'off');
    off.validate();
    expect(off.graph(URI)).not.toHaveProperty('bounds');
  });

  it('explores nothing of a playbook with errors', () => {
    expect(codes(open(NEVER.replace('needs: a', 'needs: zz')))).toEqual(['PB200']);
  });

  it('explores a text once, and again when it changes', () => {
    const service = open(NEVER);
    const first = service.validate().open.get(URI);
    expect(service.validate().open.get(URI)).toEqual(first);
    service.changeDocument(URI, NEVER.replace('done: end', 'done: next'), 2);
    expect(codes(service)).toEqual([]);
  });

  it('moves the findings with an edit in a prompt, as exploring the new text places them', () => {
    // (seeded chained edits in the prompts before and after the step PB310 is on; a fresh service each time)
    const next = prng(28);
    let text = NEVER.replace('prompt: A', 'prompt: |\n      Build A\n      well').replace(
      'prompt: B',
      'prompt: Bee',
    );
    const service = open(text);
    service.validate();
    for (let version = 2; version < 30; version++) {
      const words = [...text.matchAll(/Build|well|Bee|x+/g)];
      const word = words[Math.floor(next() * words.length)]!;
      const at = word.index! + Math.floor(next() * word[0].length);
      text =
        next() < 0.7 ? `${text.slice(0, at)}x${text.slice(at)}` : `${text.slice(0, at)}${text.slice(at + 1)}`;
      service.changeDocument(URI, text, version);
      const fresh = open(text).validate().open.get(URI);
      expect(service.validate().open.get(URI), `edit ${version}: ${JSON.stringify(text)}`).toEqual(fresh);
      expect(fresh!.map((d) => d.code)).toEqual(['PB310']);
    }
  });

  it('does not explore again after an edit in a prompt, but does after any other', () => {
    // (with a budget of 0 every exploration runs out and says so: a note tells that one ran)
    const pr = readFileSync(new URL('../../../playbooks/pr.yml', import.meta.url), 'utf8');
    const service = open(pr, 0);
    expect(service.validate().exploreNotes).toHaveLength(1);
    const prompt = pr.replace('Plan this change', 'Plan this small change');
    service.changeDocument(URI, prompt, 2);
    expect(service.validate().exploreNotes).toEqual([]);
    service.changeDocument(URI, prompt.replace('max_loops: 3', 'max_loops: 2'), 3);
    expect(service.validate().exploreNotes).toHaveLength(1);
  });

  it('says when the budget runs out, and then reports no PB310 (the numbers are lower bounds)', () => {
    const pr = readFileSync(new URL('../../../playbooks/pr.yml', import.meta.url), 'utf8');
    const service = open(pr, 0);
    const result = service.validate();
    expect(result.open.get(URI)!.filter((d) => d.code === 'PB310')).toEqual([]);
    expect(result.exploreNotes).toEqual([
      expect.stringMatching(
        /^exploring playbooks\/pb\.yml stopped after \d+ states \(the time budget of 0 s ran out\); PB310 is not reported for it/,
      ),
    ]);
    // said once per text
    expect(service.validate().exploreNotes).toEqual([]);
  });
});

describe('hover shows the bounds the explorer found', () => {
  const LOOP = `version: 1
title: Loop
steps:
  a: { role: implementer, prompt: A, retries: 1 }
  b:
    needs: a
    run: npm test
    outcomes: { pass: next, fail: { loop: a, max: 3 } }
`;
  const hoverOn = (service: PlaybookLanguageService, text: string, word: string) => {
    const offset = text.indexOf(word);
    const line = text.slice(0, offset).split('\n').length - 1;
    const character = offset - text.lastIndexOf('\n', offset - 1) - 1;
    const hover = service.hover(URI, { line, character });
    return hover && typeof hover.contents === 'object' && 'value' in hover.contents
      ? hover.contents.value
      : '';
  };

  it("on the title, the run's; on a step, its own attempts and why", () => {
    const service = open(LOOP);
    service.validate();
    expect(hoverOn(service, LOOP, 'title')).toContain(
      '**A run takes** at most 8 agent turns, 0 gate decisions, 12h of agents and checks.',
    );
    expect(hoverOn(service, LOOP, 'a: {')).toContain(
      '**Bound:** at most 8 attempts: retries: 1; loop b.fail (max 3)',
    );
    expect(hoverOn(service, LOOP, 'b:\n')).toContain('**Bound:** at most 4 attempts: loop b.fail (max 3)');
  });

  it('shows none when the explorer is off', () => {
    const service = open(LOOP, 'off');
    service.validate();
    expect(hoverOn(service, LOOP, 'title')).not.toContain('A run takes');
  });
});
