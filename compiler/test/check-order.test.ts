// The checks only read the semantic model: run in any order, they give the same diagnostics, on every
// fixture, sample playbook and documentation example.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKS } from '../src/checks/index.js';
import { analyzeFile } from '../src/compile.js';
import type { Check } from '../src/check-context.js';
import { prng } from '../../test/support/random.js';

const ROOT = new URL('../../', import.meta.url).pathname;

function yamlFiles(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) found.push(...yamlFiles(path));
    else if (/\.ya?ml$/.test(name)) found.push(path);
  }
  return found;
}

/** Every playbook text the suite knows: fixtures, samples, and the YAML blocks of the docs. */
function corpus(): { name: string; text: string }[] {
  const files = [
    ...yamlFiles(join(ROOT, 'test/fixtures')),
    ...yamlFiles(join(ROOT, 'playbooks')),
    ...yamlFiles(join(ROOT, 'docs/examples')),
  ].map((path) => ({ name: relative(ROOT, path), text: readFileSync(path, 'utf8') }));
  for (const doc of readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md'))) {
    const markdown = readFileSync(join(ROOT, 'docs', doc), 'utf8');
    let n = 0;
    for (const match of markdown.matchAll(/```yaml[^\n]*\n([\s\S]*?)```/g))
      files.push({ name: `docs/${doc} yaml block ${++n}`, text: match[1]! });
  }
  return files;
}

/** A deterministic shuffle (mulberry32). */
function shuffled(checks: readonly Check[], seed: number): Check[] {
  const random = prng(seed);
  const out = [...checks];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const ORDERS: [string, readonly Check[]][] = [
  ['reversed', [...CHECKS].reverse()],
  ['shuffled (seed 1)', shuffled(CHECKS, 1)],
  ['shuffled (seed 2)', shuffled(CHECKS, 2)],
];

describe('the checks give the same diagnostics in any order', () => {
  const files = corpus();

  it('has a corpus worth the name', () => {
    expect(files.length).toBeGreaterThan(300);
  });

  for (const [order, checks] of ORDERS) {
    it(`${order}, on every fixture, sample and docs example`, () => {
      const differ: string[] = [];
      for (const { name, text } of files) {
        const expected = analyzeFile(name, text).diagnostics;
        const actual = analyzeFile(name, text, { checks }).diagnostics;
        try {
          expect(actual).toEqual(expected);
        } catch {
          differ.push(name);
        }
      }
      expect(differ).toEqual([]);
    });
  }
});
