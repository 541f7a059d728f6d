// A process that saves a run (`node save-and-stop.mjs HOME RUN_FILE`) and stops for good between the run
// file's write and its index line, saying `between`: run-index.test.ts kills it there (kill -9).
import { readFileSync } from 'node:fs';
import { RunIndex, RunStore, deserializeRun } from '@kairoku-playbook/runtime';

const [home, file] = process.argv.slice(2);
RunIndex.betweenWrites = () => {
  process.stdout.write('between\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
};
new RunStore(home).save(deserializeRun(readFileSync(file, 'utf8')));
