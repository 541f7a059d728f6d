// Builds the panel's page into panel/dist/: index.html, panel.js (Preact and the app, one bundle),
// panel.css (static/theme.css, panel.css, run.css and graph.css, in that order) and favicon.svg. No inline script or
// style, nothing from a CDN: the page works offline under the CSP `default-src 'self'` that `serve` sends.
// Also the VS Code extension's graph view: graph.js (the one step graph, src/graph/view-page.tsx) and
// graph.css (theme.css and graph.css); the extension copies both.
//
//   node panel/build.mjs            dist/index.html, dist/panel.js, dist/panel.css, dist/graph.js, dist/graph.css
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');

export const PANEL_STYLES = ['theme.css', 'panel.css', 'run.css', 'graph.css'];
export const GRAPH_VIEW_STYLES = ['theme.css', 'graph.css'];

/** The style sheets of static/, one after the other, as one file. */
function joinStyles(names) {
  return names.map((name) => readFileSync(join(here, 'static', name), 'utf8')).join('\n');
}

/** esbuild's options for a page's script (the playground's build takes them too, as it bundles the step graph). */
export const browserBundle = (minify) => ({
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

/** The extension's graph view's files, graph.js and graph.css, into `outDir` (tests build their own copy). */
export async function buildGraphView(outDir, { minify = true } = {}) {
  mkdirSync(outDir, { recursive: true });
  await build({
    ...browserBundle(minify),
    entryPoints: [join(here, 'src', 'graph', 'view-page.tsx')],
    outfile: join(outDir, 'graph.js'),
  });
  writeFileSync(join(outDir, 'graph.css'), joinStyles(GRAPH_VIEW_STYLES));
}

export async function buildPanel({ minify = true } = {}) {
  mkdirSync(dist, { recursive: true });
  const result = await build({
    ...browserBundle(minify),
    entryPoints: [join(here, 'src', 'page', 'main.tsx')],
    outfile: join(dist, 'panel.js'),
  });
  await buildGraphView(dist, { minify });
  copyFileSync(join(here, 'static', 'index.html'), join(dist, 'index.html'));
  writeFileSync(join(dist, 'panel.css'), joinStyles(PANEL_STYLES));
  copyFileSync(join(here, 'static', 'favicon.svg'), join(dist, 'favicon.svg'));
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { metafile } = await buildPanel();
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.log(`panel: dist/panel.js ${Math.round(bytes / 1024)} KiB`);
}
