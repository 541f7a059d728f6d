/**
 * Starts the bundled CLI through a V8 code cache (as Node 22's module compile cache does), so a cold
 * `check` skips compiling the bundle. The cache is written at build time, beside the bundle; when
 * this Node rejects it (another version), the bundle is compiled as usual and nothing is written.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const here = dirname(fileURLToPath(import.meta.url));
const bundlePath = join(here, 'kairoku-playbook.bundle.cjs');
const cachePath = join(here, 'kairoku-playbook.v8cache');

let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cachePath);
} catch {
  cachedData = undefined;
}
const source = readFileSync(bundlePath, 'utf8');
const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
const script = new Script(wrapped, { filename: bundlePath, cachedData });

if (process.env.KAIROKU_PLAYBOOK_WRITE_CODE_CACHE === '1') {
  // After the run, so the cache holds the functions a check compiled lazily too.
  process.on('exit', () => {
    const temp = `${cachePath}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, cachePath);
    } catch (error) {
      // A build on a full disk: no cache (the CLI runs without one), and no temp file left behind.
      rmSync(temp, { force: true });
      throw error;
    }
  });
}

const module = { exports: {} };
const run = script.runInThisContext() as (...args: unknown[]) => void;
run(module.exports, createRequire(bundlePath), module, bundlePath, here);
