#!/usr/bin/env node
// Times `diffPlaybooks` (kairoku-playbook diff's core) on generated playbooks (bench/generate.mjs):
// a playbook against itself (every node matched by its final class), and against a copy with one
// loop's max raised (every class of the connected graph changes, so matching falls back to earlier
// rounds, names and places). Compilation is not timed.
//
//   node bench/diff.mjs [STEPS...]      (default 500 2000)

import { performance } from 'node:perf_hooks';
import { compilePlaybook, diffPlaybooks } from '../compiler/dist/index.js';
import { generatePlaybook } from './generate.mjs';

const sizes = process.argv.slice(2).map(Number);
for (const steps of sizes.length ? sizes : [500, 2000]) {
  const text = generatePlaybook(steps);
  const edited = text.replace(/(loop: [^,}]+, max: )(\d+)/, (_, head, n) => `${head}${Number(n) + 1}`);
  if (edited === text) throw new Error('the generated playbook has no loop max to raise');
  const [base, head] = [text, edited].map((t) => {
    const { ir, diagnostics } = compilePlaybook('big.yml', t);
    if (!ir) throw new Error(`does not compile: ${diagnostics[0]?.message}`);
    return ir;
  });
  for (const [name, other] of [
    ['same', base],
    ['one loop max raised', head],
  ]) {
    const start = performance.now();
    const changes = diffPlaybooks(base, other);
    const ms = performance.now() - start;
    console.log(`${steps} steps, ${name}: ${ms.toFixed(0)} ms, ${changes.length} change(s)`);
  }
}
