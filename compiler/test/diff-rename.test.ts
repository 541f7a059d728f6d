import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePlaybook, diffPlaybooks, matchPlaybooks } from '../src/index.js';
import { irOf, renameEverything } from './diff-support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every playbook under a folder, sub-folders included (tests excepted). */
function playbooks(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(join(ROOT, folder)).sort()) {
    const path = join(ROOT, folder, name);
    if (statSync(path).isDirectory()) found.push(...playbooks(relative(ROOT, path)));
    else if (/\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name)) found.push(relative(ROOT, path));
  }
  return found;
}

const SAMPLES = [...playbooks('test/fixtures/ok'), ...playbooks('playbooks')];

describe('a rename-only edit gives an empty diff', () => {
  it('covers every sample', () => {
    expect(SAMPLES.length).toBeGreaterThan(100);
  });

  for (const file of SAMPLES) {
    it(file, () => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const base = compilePlaybook(file, text).ir;
      if (!base) return; // a fixture that is ok for check with warnings only always compiles; others are not playbooks
      const renamedText = renameEverything(text);
      const head = irOf(renamedText, file);
      if (base.steps.length) expect(head.steps.map((s) => s.name)).not.toEqual(base.steps.map((s) => s.name));
      const matching = matchPlaybooks(base, head);
      expect(matching.steps.size, 'every step matched').toBe(base.steps.length);
      expect(matching.after.size, 'every after-task matched').toBe(base.after.length);
      expect(matching.inputs.size, 'every input matched').toBe(base.inputs.length);
      expect(diffPlaybooks(base, head)).toEqual([]);
      expect(diffPlaybooks(head, base)).toEqual([]);
    });
  }
});
