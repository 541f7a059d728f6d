#!/usr/bin/env node
// A sim run of a generated 10,000-step playbook against a 2,000-step one (issue 3: at most 6×), in
// one run of this script so both sizes meet the same machine load:
//
//   (run)   runSim alone, in-process, on the compiled IR: the interpreter's own work
//   (cli)   `kairoku-playbook run FILE --backend sim --json` as a whole process: reading, checking,
//           compiling, running and writing the run file
//
// Medians of REPEAT (default 3) after a warm-up. Run after `npm run build`:
//
//   node bench/sim-run.mjs [REPEAT]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { emptyScenario, runSim, serializeRun } from '@kairoku-playbook/runtime';
import { generatePlaybook } from './generate.mjs';

const REPEAT = Number(process.argv[2] ?? 3);
const cli = new URL('../cli/dist/kairoku-playbook.js', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'kp-bench-sim-'));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function measure(steps) {
  // The generator adds a root step to N: N - 1 gives N steps in all.
  const file = join(work, `big-${steps}.yml`);
  writeFileSync(file, generatePlaybook(steps - 1));
  const text = readFileSync(file, 'utf8');
  const compileStart = performance.now();
  const { ir } = compilePlaybook(file, text);
  const compileMs = performance.now() - compileStart;
  if (!ir) throw new Error(`${file} did not compile`);
  const once = () => {
    const start = performance.now();
    const result = runSim({
      ir,
      scenario: emptyScenario(),
      inputs: { task: 'bench' },
      id: 'bench',
      clock: () => 0,
    });
    const ms = performance.now() - start;
    if (!result.ok || result.state.status !== 'completed')
      throw new Error(`the ${steps}-step run did not complete`);
    return { ms, state: result.state };
  };
  once();
  const runs = Array.from({ length: REPEAT }, once);
  const saveStart = performance.now();
  const saved = serializeRun(runs[0].state);
  const saveMs = performance.now() - saveStart;
  const home = join(work, `home-${steps}`);
  const whole = [];
  for (let i = 0; i < REPEAT; i++) {
    const start = performance.now();
    const done = spawnSync(
      process.execPath,
      [cli, 'run', file, '--backend', 'sim', '--json', '--input', 'task=bench'],
      {
        env: { ...process.env, KAIROKU_PLAYBOOK_HOME: home },
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      },
    );
    whole.push(performance.now() - start);
    if (done.status !== 0)
      throw new Error(`the CLI run of ${steps} steps failed: ${done.stderr.slice(0, 2000)}`);
  }
  return {
    steps: ir.steps.length + ir.after.length,
    compileMs,
    runMs: median(runs.map((r) => r.ms)),
    usPerStep: (median(runs.map((r) => r.ms)) * 1000) / steps,
    saveMs,
    stateBytes: Buffer.byteLength(saved),
    cliMs: median(whole),
  };
}

try {
  const small = measure(2000);
  const large = measure(10000);
  const row = (r) =>
    `${String(r.steps).padStart(6)} steps: compile ${r.compileMs.toFixed(0)} ms, runSim ${r.runMs.toFixed(0)} ms (${r.usPerStep.toFixed(1)} µs/step), run file ${(r.stateBytes / 1e6).toFixed(1)} MB written in ${r.saveMs.toFixed(0)} ms, whole CLI ${r.cliMs.toFixed(0)} ms`;
  console.log(row(small));
  console.log(row(large));
  console.log(
    `(run) runSim 10k / 2k: ${(large.runMs / small.runMs).toFixed(2)}× (target ≤ 6×; linear is 5×)`,
  );
  console.log(`(cli) whole CLI 10k / 2k: ${(large.cliMs / small.cliMs).toFixed(2)}× (target ≤ 6×)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
