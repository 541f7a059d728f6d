// Builds the panel's page into panel/dist/: index.html, panel.js (Preact and the app, one bundle),
// panel.css and favicon.svg. No inline script or style, nothing from a CDN: the page works offline under the CSP
// `default-src 'self'` that `serve` sends.
//
//   node panel/build.mjs            dist/index.html, dist/panel.js, dist/panel.css
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');

export async function buildPanel({ minify = true } = {}) {
  mkdirSync(dist, { recursive: true });
  const result = await build({
    entryPoints: [join(here, 'src', 'page', 'main.tsx')],
    outfile: join(dist, 'panel.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    sourcemap: false,
    legalComments: 'eof',
    logLevel: 'warning',
    metafile: true,
  });
  copyFileSync(join(here, 'static', 'index.html'), join(dist, 'index.html'));
  copyFileSync(join(here, 'static', 'panel.css'), join(dist, 'panel.css'));
  copyFileSync(join(here, 'static', 'favicon.svg'), join(dist, 'favicon.svg'));
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { metafile } = await buildPanel();
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.log(`panel: dist/panel.js ${Math.round(bytes / 1024)} KiB`);
}
