#!/usr/bin/env node
// What masking secrets by their fingerprints costs (issue 11, runtime/README.md "Secrets"): the time to
// mask a text when the process has the value (a search) and when it has only the run's fingerprints
// (a rolling hash over every window, an HMAC where it matches), for texts of 10 KiB to 1 MiB and one
// or five secrets; reported as the fingerprint/value ratio and in MB/s. Also how a run file grows
// under 3,000 outsiders' notes (the history bound). Run after `npx tsc -b`:
//
//   node bench/secret-mask.mjs
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '../compiler/dist/index.js';
import { createRun } from '../machine/dist/core/create-run.js';
import { SecretMasker, fingerprintSecrets, secretPieces } from '../machine/dist/core/secret-mask.js';
import { advance } from '../machine/dist/core/transition.js';
import { serializeRun } from '../runtime/dist/store/run-store.js';

const KEY = Buffer.alloc(32, 1);
// The fastest of many rounds: on a shared machine the median measures the neighbours as well.
function time(fn, rounds = 30) {
  fn();
  let best = Infinity;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

function text(bytes, secret) {
  const words = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const word = i % 997 === 500 ? secret : `word${(i * 7919) % 10007}`;
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

console.log('masking (fastest of 30 rounds):');
console.log('  text      secrets  by value   by fingerprint  ratio   fingerprint MB/s');
for (const count of [1, 5]) {
  const secrets = Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`s${i}`, `tok-${i}-${'x'.repeat(10 + i)}-Sup3rS3cret`]),
  );
  const prints = Object.values(fingerprintSecrets(secrets, KEY, 'bench')).flat();
  const byValue = new SecretMasker(secretPieces(Object.values(secrets)));
  const byPrint = new SecretMasker([], prints, KEY, 'bench');
  for (const kib of [10, 100, 1024]) {
    const sample = text(kib * 1024, secrets.s0);
    const masked = byValue.mask(sample);
    if (byPrint.mask(sample) !== masked) throw new Error('fingerprint masking differs from value masking');
    const v = Math.max(
      time(() => byValue.mask(sample)),
      0.01,
    );
    const f = time(() => byPrint.mask(sample));
    console.log(
      `  ${String(kib).padStart(5)} KiB ${String(count).padStart(5)}  ${v.toFixed(2).padStart(8)} ms ${f.toFixed(2).padStart(10)} ms ${(f / v).toFixed(1).padStart(9)}× ${(kib / 1024 / (f / 1000)).toFixed(1).padStart(10)}`,
    );
  }
}

const { ir } = compilePlaybook(
  'b.yml',
  'version: 1\nid: b\ntitle: B\nsteps:\n  work:\n    role: implementer\n    prompt: Work\n',
);
let state = advance(createRun(ir, { id: 'b', inputs: {}, now: 0 }), { type: 'start' }, 0).state;
const sizes = [];
for (let i = 1; i <= 3000; i++) {
  state = advance(
    state,
    { type: 'note', kind: 'refused', text: `request ${i} refused: ${'x'.repeat(80)}` },
    i,
  ).state;
  if ([1, 100, 500, 1000, 3000].includes(i)) sizes.push([i, state.history.size, serializeRun(state).length]);
}
console.log('\nrun file under distinct outsiders’ notes:');
for (const [notes, entries, bytes] of sizes)
  console.log(
    `  ${String(notes).padStart(5)} notes: ${String(entries).padStart(4)} history entries, ${bytes} bytes`,
  );
