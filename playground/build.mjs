// Builds the playground's page into docs/playground/: index.html, playground.js (CodeMirror, the grammar,
// the compiler, the explorer, the panel's step graph and the page, one classic script), playground.css (the
// page's and panel/static/graph.css) and the licences of the
// packages in playground.js (THIRD-PARTY-NOTICES.txt). Nothing inline, nothing
// from a CDN, no module script and nothing fetched at run time: the page works offline, from a file: URL,
// under its own CSP meta tag. Built by `npm run build` (cli/build.mjs builds it first, as `playground`
// serves it from the CLI's bundle); the output is not committed.
//
//   node playground/build.mjs      docs/playground/index.html, playground.js, playground.css
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { thirdPartyNotices, workspaceSources } from '../scripts/build/bundling.mjs';
import { browserBundle } from '../panel/build.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
export const PLAYGROUND_DIST = join(root, 'docs', 'playground');

/**
 * Pure modules of other packages that are not among their published entries (tsconfig.json's `paths`
 * names the same two for the type check), and `node:crypto`, which the compiler uses for the IR's
 * sha256 only. The explorer is @kairoku-playbook/machine's published entry, resolved like every package.
 */
const aliases = {
  '#check-json': join(root, 'cli', 'src', 'format', 'json.ts'),
  '#graph': join(root, 'lsp', 'src', 'service', 'features', 'graph.ts'),
  'node:crypto': join(here, 'src', 'node-crypto.ts'),
};

const browserAliases = {
  name: 'playground-aliases',
  setup(builder) {
    builder.onResolve({ filter: /^(#check-json|#graph|node:crypto)$/ }, (args) => ({
      path: aliases[args.path],
    }));
    builder.onResolve({ filter: /^#examples$/ }, () => ({
      path: 'examples',
      namespace: 'playground-examples',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'playground-examples' }, async () => ({
      loader: 'js',
      contents: `export const EXAMPLES = ${JSON.stringify(await examples())};\n`,
      resolveDir: root,
    }));
  },
};

/**
 * The examples the page offers: the sample playbooks (playbooks/*.yml) and every runnable one-file
 * playbook example of the docs (the blocks docs/docs.test.ts runs), each once.
 */
export async function examples() {
  const list = [];
  const seen = new Set();
  const add = (origin, file, text) => {
    if (seen.has(text)) return;
    seen.add(text);
    list.push({ origin, file, text });
  };
  const samples = join(root, 'playbooks');
  // pr.yml first: the page opens on it
  const names = readdirSync(samples).sort(
    (a, b) => Number(b === 'pr.yml') - Number(a === 'pr.yml') || a.localeCompare(b),
  );
  for (const name of names)
    if (/\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name))
      add(`playbooks/${name}`, name, readFileSync(join(samples, name), 'utf8'));
  const { examplesOf, markdownFiles } = await docsExamples();
  for (const path of markdownFiles(join(root, 'docs'))) {
    const doc = path
      .slice(root.length + 1)
      .split('\\')
      .join('/');
    for (const example of examplesOf(doc, readFileSync(path, 'utf8')).examples) {
      const [file, ...others] = example.files;
      if (!file || others.length || /\.test\.ya?ml$/.test(file.name)) continue;
      add(`${doc}:${example.line}`, file.name, file.text);
    }
  }
  return list;
}

/** docs/examples.ts (TypeScript, as the docs test imports it), bundled for this script. */
async function docsExamples() {
  const { outputFiles } = await build({
    entryPoints: [join(root, 'docs', 'examples.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'warning',
  });
  const url = `data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`;
  return import(url);
}

export async function buildPlayground({ minify = true } = {}) {
  mkdirSync(PLAYGROUND_DIST, { recursive: true });
  const result = await build({
    // the panel's page options (the step graph is its Preact component), but:
    ...browserBundle(minify),
    entryPoints: [join(here, 'src', 'main.ts')],
    outfile: join(PLAYGROUND_DIST, 'playground.js'),
    // a classic script: a module script loaded from a file: URL is refused by the browser
    format: 'iife',
    target: ['chrome110', 'firefox113', 'safari16.4'],
    absWorkingDir: root,
    plugins: [browserAliases, workspaceSources],
  });
  copyFileSync(join(here, 'static', 'index.html'), join(PLAYGROUND_DIST, 'index.html'));
  // the page's own style, then the panel's step graph's (its colours from the names playground.css defines)
  writeFileSync(
    join(PLAYGROUND_DIST, 'playground.css'),
    [join(here, 'static', 'playground.css'), join(root, 'panel', 'static', 'graph.css')]
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n'),
  );
  // the licences of CodeMirror, Lezer, yaml, Ajv, chevrotain, … that travel with the page
  writeFileSync(
    join(PLAYGROUND_DIST, 'THIRD-PARTY-NOTICES.txt'),
    thirdPartyNotices(result.metafile, 'The kairoku-playbook playground (playground.js)'),
  );
  return result;
}

/**
 * engine.ts alone, bundled for Node from the same sources with the same aliases as the page: the
 * baseline bench/playground.mjs measures the page against.
 */
export async function buildEngineForNode(outfile) {
  await build({
    entryPoints: [join(here, 'src', 'engine.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    absWorkingDir: root,
    // (CommonJS packages in an ES module bundle call require for Node's built-ins)
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    plugins: [browserAliases, workspaceSources],
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { metafile } = await buildPlayground();
  const bytes = Object.values(metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
  console.log(
    `playground: docs/playground/playground.js ${Math.round(bytes / 1024)} KiB (${pathToFileURL(join(PLAYGROUND_DIST, 'index.html'))})`,
  );
}
