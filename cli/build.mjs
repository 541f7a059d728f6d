// Builds the CLI into dist/:
//
//   node cli/build.mjs          kairoku-playbook.bundle.cjs   the program, one file
//                               kairoku-playbook.check.cjs    `check` and `completion` alone (smaller)
//                               kairoku-playbook.complete.cjs `__complete` alone (a TAB: the smallest)
//                               kairoku-playbook.js           the launcher (bin/kairoku-playbook.js runs it)
//                               kairoku-playbook.v8cache      a V8 code cache of each bundle, warmed by a
//                               kairoku-playbook.check.v8cache  real check (the completion's by a TAB)
//                               kairoku-playbook.complete.v8cache
//                               schema/*.json                 the surface's and the IR's JSON Schemas
//                               THIRD-PARTY-NOTICES.txt       the licences of the bundled packages
//   node cli/build.mjs --sea    the same, then sea/kairoku-playbook: a single executable (Node's SEA)
//
// One bundle, so `check` starts fast (no module resolution at run time) and the npm package depends on
// nothing. The workspace packages are bundled from their TypeScript sources, as the tests run them: the
// bundle never lags behind a stale `tsc -b`, and a checkout builds with `npm ci` and this script alone
// (the GitHub Action does that, action/run.mjs).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prettierBundling, thirdPartyNotices, workspaceSources } from '../scripts/build/bundling.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = (name) => join(here, 'dist', name);

/**
 * cli/src/assets.ts, with the texts it would read from the repository written into it (the schemas, the
 * diagnostics reference, the panel `serve` serves, the playground): a bundle needs no file of the
 * repository beside it. The extension's build bundles the CLI with it too, leaving out what it never
 * runs (`leaveOut`: the playground page, a megabyte the .vsix's per-file budget has no room for).
 */
export function embeddedAssetsPlugin({ leaveOut = [] } = {}) {
  return {
    name: 'embedded-assets',
    setup(builder) {
      const source = join(here, 'src', 'assets.ts');
      builder.onLoad({ filter: /[\\/]cli[\\/]src[\\/]assets\.ts$/ }, (args) => {
        if (args.path !== source) return undefined;
        const assets = assetPaths();
        const carried = Object.entries(assets).filter(([name]) => !leaveOut.includes(name));
        const texts = Object.fromEntries(
          carried.map(([name, path]) => [name, readFileSync(join(root, path), 'utf8')]),
        );
        return {
          loader: 'js',
          contents:
            `export const ASSETS = ${JSON.stringify(assets)};\n` +
            `const TEXTS = ${JSON.stringify(texts)};\n` +
            'export function assetText(name) {\n' +
            '  if (!(name in TEXTS)) throw new Error(`this build of kairoku-playbook does not carry ${ASSETS[name]}: ' +
            "the VS Code extension's bundled CLI leaves it out; use the npm package (npx kairoku-playbook)`);\n" +
            '  return TEXTS[name];\n' +
            '}\n',
          watchFiles: carried.map(([, path]) => join(root, path)),
        };
      });
    },
  };
}

/** Every asset embedded: the CLI's own bundle (npm package, single executable). */
export const embeddedAssets = embeddedAssetsPlugin();

/** The ASSETS table of cli/src/assets.ts (name → path in the repository), read from its source. */
export function assetPaths() {
  const source = readFileSync(join(here, 'src', 'assets.ts'), 'utf8');
  const table = /export const ASSETS = \{([^}]*)\}/.exec(source)?.[1];
  if (!table) throw new Error('cli/src/assets.ts has no ASSETS table');
  const assets = Object.fromEntries([...table.matchAll(/(\w+): '([^']+)'/g)].map((m) => [m[1], m[2]]));
  if (Object.keys(assets).length === 0) throw new Error('cli/src/assets.ts: the ASSETS table is empty');
  return assets;
}

/** The check bundle carries only the asset it reads (the playbook schema, for the language version). */
const NOT_FOR_CHECK = Object.keys(assetPaths()).filter((name) => name !== 'playbookSchema');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
};

export async function buildCli() {
  mkdirSync(dist('schema'), { recursive: true });
  // The Playbooks panel's page is embedded (serve serves it), so it is built first: a checkout built by
  // the GitHub Action or the pre-commit hook runs only this script.
  const { buildPanel } = await import('../panel/build.mjs');
  await buildPanel();
  // The playground's page too (`playground` serves it).
  const { buildPlayground } = await import('../playground/build.mjs');
  const playground = await buildPlayground();

  // The program: CommonJS, so the launcher can compile it with vm.Script and a code cache, and so it can
  // be a single executable's main script (Node 20 runs only CommonJS there).
  const define = {
    'process.env.WS_NO_BUFFER_UTIL': '"1"',
    'process.env.WS_NO_UTF_8_VALIDATE': '"1"',
  };
  const program = await build({
    ...common,
    entryPoints: [join(here, 'src', 'bin.ts')],
    outfile: dist('kairoku-playbook.bundle.cjs'),
    format: 'cjs',
    plugins: [workspaceSources, embeddedAssets, prettierBundling],
    // ws tries its optional native add-ons (`require("bufferutil")`, `require("utf-8-validate")`) unless
    // these variables are set. A bundle carries neither, and a single executable's require() loads only
    // built-in modules, so Node printed a four-line warning on every command. Defined here, the
    // branches that require them are dead code and leave the bundle.
    define,
    metafile: true,
  });
  // The commands of cli/src/main-check.ts alone, which the launcher runs for them: no runtime, language
  // server or Prettier, none of the pages `serve` and `playground` carry, nor `explain`'s reference.
  await build({
    ...common,
    entryPoints: [join(here, 'src', 'bin-check.ts')],
    outfile: dist('kairoku-playbook.check.cjs'),
    format: 'cjs',
    plugins: [workspaceSources, embeddedAssetsPlugin({ leaveOut: NOT_FOR_CHECK })],
    define,
  });
  // `__complete` alone (cli/src/bin-complete.ts), what a shell runs at every TAB: completion's modules only.
  await build({
    ...common,
    entryPoints: [join(here, 'src', 'bin-complete.ts')],
    outfile: dist('kairoku-playbook.complete.cjs'),
    format: 'cjs',
    plugins: [workspaceSources],
  });
  // (with the packages of the playground's page, which the bundle carries as text)
  const inputs = { ...program.metafile.inputs, ...playground.metafile.inputs };
  writeFileSync(dist('THIRD-PARTY-NOTICES.txt'), thirdPartyNotices({ inputs }, 'kairoku-playbook'));

  // The launcher: what the `kairoku-playbook` bin runs. It answers `--version` itself, with what the
  // program prints for it (no bundle loaded for that).
  const version = spawnSync(process.execPath, [dist('kairoku-playbook.bundle.cjs'), '--version'], {
    encoding: 'utf8',
  });
  if (version.status !== 0) throw new Error(`the built CLI failed --version: ${version.stderr}`);
  await build({
    ...common,
    define: { KAIROKU_PLAYBOOK_VERSION_TEXT: JSON.stringify(version.stdout) },
    entryPoints: [join(here, 'src', 'launcher.ts')],
    outfile: dist('kairoku-playbook.js'),
    format: 'esm',
    banner: { js: '#!/usr/bin/env node' },
  });
  chmodSync(dist('kairoku-playbook.js'), 0o755);

  // The schemas, as files, for `$schema` comments and editors that point at the installed package.
  const assets = assetPaths();
  copyFileSync(join(root, assets.playbookSchema), dist('schema/playbook.schema.json'));
  copyFileSync(join(root, assets.irSchema), dist('schema/ir.schema.json'));

  // Warm the code caches with a real check, so the functions a check needs are in them: the check
  // bundle's, and the whole bundle's (KAIROKU_PLAYBOOK_BUNDLE=full makes the launcher run it).
  for (const [cache, bundle] of [
    ['kairoku-playbook.check.v8cache', 'check'],
    ['kairoku-playbook.v8cache', 'full'],
  ]) {
    rmSync(dist(cache), { force: true });
    const warm = spawnSync(
      process.execPath,
      [dist('kairoku-playbook.js'), 'check', '--format', 'json', join(root, 'playbooks')],
      {
        env: { ...process.env, KAIROKU_PLAYBOOK_WRITE_CODE_CACHE: '1', KAIROKU_PLAYBOOK_BUNDLE: bundle },
        encoding: 'utf8',
      },
    );
    if (warm.status !== 0) {
      process.stderr.write(warm.stdout + warm.stderr);
      throw new Error('the built CLI failed to check the sample playbooks');
    }
  }
  // and the completion bundle's, with one TAB after `runs show ` (the run ids: the store's folder read)
  rmSync(dist('kairoku-playbook.complete.v8cache'), { force: true });
  const tab = spawnSync(process.execPath, [dist('kairoku-playbook.js'), '__complete', 'runs', 'show', ''], {
    env: { ...process.env, KAIROKU_PLAYBOOK_WRITE_CODE_CACHE: '1' },
    encoding: 'utf8',
  });
  if (tab.status !== 0) throw new Error(`the built CLI failed a completion: ${tab.stderr}`);
}

/**
 * A single executable application: this Node binary with the bundle injected (postject), for machines
 * without Node. Built for the platform this runs on; CI builds and tests the linux-x64 one.
 */
export function buildSingleExecutable() {
  const out = dist('sea');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const blob = join(out, 'kairoku-playbook.blob');
  const config = join(out, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify({
      main: dist('kairoku-playbook.bundle.cjs'),
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
    }),
  );
  run(process.execPath, ['--experimental-sea-config', config]);
  const executable = join(out, process.platform === 'win32' ? 'kairoku-playbook.exe' : 'kairoku-playbook');
  copyFileSync(process.execPath, executable);
  chmodSync(executable, 0o755);
  const postject = join(dirname(fileURLToPath(import.meta.resolve('postject'))), 'cli.js');
  run(process.execPath, [
    postject,
    executable,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2',
    ...(process.platform === 'darwin' ? ['--macho-segment-name', 'NODE_SEA'] : []),
  ]);
  rmSync(blob);
  rmSync(config);
  return executable;
}

function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`${basename(command)} ${args.join(' ')} failed`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildCli();
  if (process.argv.includes('--sea')) buildSingleExecutable();
}
