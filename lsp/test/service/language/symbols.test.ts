import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { symbolIndex, warmSymbolIndex } from '../../../src/service/language/symbols.js';
import { analyze } from '../../support/cursor.js';

const pr = readFileSync(new URL('../../../../playbooks/pr.yml', import.meta.url), 'utf8');

/** pr.yml's steps again and again under new names: enough steps and templates for many slices. */
function bigPlaybook(copies: number): string {
  const [head, steps] = pr.split(/^steps:\n/m) as [string, string];
  const body = steps.split(/^(?:outputs|after):/m)[0]!;
  const names = ['plan', 'implement', 'qa', 'review', 'ship'];
  let text = `${head}steps:\n${body}`;
  for (let copy = 1; copy < copies; copy++) {
    let renamed = body;
    for (const name of names) renamed = renamed.replace(new RegExp(`\\b${name}\\b`, 'g'), `${name}${copy}`);
    text += renamed;
  }
  return text;
}

describe('the symbol index, built in slices', () => {
  it('gives the index a one-shot build gives, over as many slices as it takes', () => {
    const text = bigPlaybook(40);
    const whole = symbolIndex(analyze(text));
    const sliced = analyze(text);
    let slices = 1;
    while (!warmSymbolIndex(sliced, 0)) slices++;
    expect(slices).toBeGreaterThan(3);
    const index = symbolIndex(sliced);
    expect(index.occurrences.map((o) => [o.symbol.key, o.range.start, o.range.end, o.isDeclaration])).toEqual(
      whole.occurrences.map((o) => [o.symbol.key, o.range.start, o.range.end, o.isDeclaration]),
    );
    expect([...index.symbols.keys()]).toEqual([...whole.symbols.keys()]);
  });

  it('is finished at once by a request that needs it while a warm-up is under way', () => {
    const analysis = analyze(bigPlaybook(10));
    expect(warmSymbolIndex(analysis, 0)).toBe(false);
    const index = symbolIndex(analysis);
    expect(index.symbols.size).toBeGreaterThan(50);
    expect(warmSymbolIndex(analysis, 0)).toBe(true);
    expect(symbolIndex(analysis)).toBe(index);
  });
});
