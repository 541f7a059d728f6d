// The browser benches' Chromium (panel.mjs, playground.mjs): the browser tests' own launch,
// test/e2e/support/workbench.ts's launchChromium (Debian's /usr/bin/chromium, headless, its flags),
// bundled with esbuild because Node 20 reads no TypeScript.
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Launches the browser tests' Chromium. */
export async function launchChromium() {
  const out = join(root, 'bench', 'out');
  mkdirSync(out, { recursive: true });
  const file = join(out, 'workbench.mjs');
  await build({
    entryPoints: [join(root, 'test', 'e2e', 'support', 'workbench.ts')],
    outfile: file,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'warning',
    external: ['playwright-core'],
  });
  const workbench = await import(pathToFileURL(file).href);
  return workbench.launchChromium();
}
