// Preloaded (node --require) into every benchmarked process by bench/run.mjs: at exit, writes the
// process's CPU time (user + system, all threads, since the process started) to file descriptor 3
// as JSON in microseconds. Wall-clock time is the benchmark; CPU time is reported beside it because
// it is far less sensitive to other load on a shared machine. Costs well under a millisecond.
'use strict';
// A CommonJS preload on purpose: an ESM one (--import) would start the ESM loader in `node -e 0`.
// eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
const { writeSync } = require('node:fs');

process.on('exit', () => {
  try {
    writeSync(3, JSON.stringify(process.cpuUsage()));
  } catch {
    // no fd 3 (run by hand): nothing to report
  }
});
