/**
 * Starts the bundled CLI through a V8 code cache (as Node 22's module compile cache does), so a cold
 * `check` skips compiling the bundle. The cache is written at build time, beside the bundle; when
 * this Node rejects it (another version), the bundle is compiled as usual and nothing is written.
 *
 * Three bundles, each with its cache: kairoku-playbook.complete.cjs answers `__complete`, what a shell
 * runs at every TAB (completion's modules alone); kairoku-playbook.check.cjs the commands a person waits
 * for most often (check-bundle-commands.ts: `check`, and `completion`'s script) and carries only what they
 * use; kairoku-playbook.bundle.cjs answers everything. A cold start pays for reading, deserializing and
 * evaluating its bundle, so the smaller one starts faster. `--version` is answered here, from the text
 * the built program printed for it at build time (cli/build.mjs), without loading either.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { CHECK_BUNDLE_COMMANDS } from './check-bundle-commands.js';

/** `kairoku-playbook --version`'s answer, defined by cli/build.mjs. */
declare const KAIROKU_PLAYBOOK_VERSION_TEXT: string | undefined;

const command = process.argv[2];
if ((command === '--version' || command === '-v') && typeof KAIROKU_PLAYBOOK_VERSION_TEXT === 'string') {
  process.stdout.write(KAIROKU_PLAYBOOK_VERSION_TEXT);
} else {
  // KAIROKU_PLAYBOOK_BUNDLE=full: the build warms the whole bundle's cache with a `check` too.
  const full = process.env.KAIROKU_PLAYBOOK_BUNDLE === 'full';
  if (!full && command === '__complete') launch('kairoku-playbook.complete', 'kairoku-playbook.complete');
  else if (!full && CHECK_BUNDLE_COMMANDS.has(command ?? ''))
    launch('kairoku-playbook.check', 'kairoku-playbook.check');
  else launch('kairoku-playbook.bundle', 'kairoku-playbook');
}

/** Runs the bundle NAME.cjs through the code cache CACHE.v8cache. */
function launch(name: string, cache: string): void {
  const here = dirname(fileURLToPath(import.meta.url));
  const bundlePath = join(here, `${name}.cjs`);
  const cachePath = join(here, `${cache}.v8cache`);
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
}
