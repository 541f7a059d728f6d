// Builds the CLI into dist/:
//
//   node cli/build.mjs          kairoku-playbook.bundle.cjs   the program, one file
//                               kairoku-playbook.js           the launcher (bin/kairoku-playbook.js runs it)
//                               kairoku-playbook.v8cache      a V8 code cache, warmed by a real check
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
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = (name) => join(here, 'dist', name);

/**
 * `@kairoku-playbook/<package>[/<sub-path>]` → the TypeScript source of what the package exports there
 * (`./dist/x.js` → `src/x.ts`); JSON and other files under the package resolve as they are.
 */
const workspaceSources = {
  name: 'workspace-sources',
  setup(builder) {
    builder.onResolve({ filter: /^@kairoku-playbook\// }, (args) => {
      const [, name, sub] = /^@kairoku-playbook\/([^/]+)(?:\/(.+))?$/.exec(args.path) ?? [];
      const dir = join(root, name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const entry = manifest.exports?.[sub === undefined ? '.' : `./${sub}`];
      const target = typeof entry === 'string' ? entry : entry?.default;
      if (target === undefined) {
        if (sub !== undefined && existsSync(join(dir, sub))) return { path: join(dir, sub) };
        return { errors: [{ text: `${args.path} is not exported by ${name}/package.json` }] };
      }
      return { path: join(dir, target.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')) };
    });
  },
};

/** cli/src/assets.ts, with the texts it would read from the repository written into it. */
const embeddedAssets = {
  name: 'embedded-assets',
  setup(builder) {
    const source = join(here, 'src', 'assets.ts');
    builder.onLoad({ filter: /[\\/]cli[\\/]src[\\/]assets\.ts$/ }, (args) => {
      if (args.path !== source) return undefined;
      const assets = assetPaths();
      const texts = Object.fromEntries(
        Object.entries(assets).map(([name, path]) => [name, readFileSync(join(root, path), 'utf8')]),
      );
      return {
        loader: 'js',
        contents:
          `export const ASSETS = ${JSON.stringify(assets)};\n` +
          `const TEXTS = ${JSON.stringify(texts)};\n` +
          'export function assetText(name) { return TEXTS[name]; }\n',
        watchFiles: Object.values(assets).map((path) => join(root, path)),
      };
    });
  },
};

/** The ASSETS table of cli/src/assets.ts (name → path in the repository), read from its source. */
export function assetPaths() {
  const source = readFileSync(join(here, 'src', 'assets.ts'), 'utf8');
  const table = /export const ASSETS = \{([^}]*)\}/.exec(source)?.[1];
  if (!table) throw new Error('cli/src/assets.ts has no ASSETS table');
  const assets = Object.fromEntries([...table.matchAll(/(\w+): '([^']+)'/g)].map((m) => [m[1], m[2]]));
  if (Object.keys(assets).length === 0) throw new Error('cli/src/assets.ts: the ASSETS table is empty');
  return assets;
}

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** The licence texts of the packages whose code is in the bundle (MIT, ISC and Apache-2.0 ask for it). */
function thirdPartyNotices(metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const path = input.split('/').join(sep);
    const at = path.lastIndexOf(`node_modules${sep}`);
    if (at < 0) continue;
    const rest = path.slice(at + `node_modules${sep}`.length).split(sep);
    const nameParts = rest[0].startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
    const dir = join(root, path.slice(0, at), 'node_modules', ...nameParts);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const title = `${manifest.name} ${manifest.version} (${manifest.license ?? 'see below'})`;
    if (manifest.name?.startsWith('@kairoku-playbook/') || packages.has(title)) continue;
    const licenceFile = readdirSync(dir).find((name) => /^licen[cs]e(\.md|\.txt)?$/i.test(name));
    packages.set(title, {
      title,
      text: licenceFile
        ? readFileSync(join(dir, licenceFile), 'utf8').trim()
        : `No licence file in the package; its package.json says: ${manifest.license}.`,
    });
  }
  const sorted = [...packages.values()].sort((a, b) => a.title.localeCompare(b.title));
  return (
    'kairoku-playbook bundles the following packages. Their licences follow.\n\n' +
    sorted.map(({ title, text }) => `${'='.repeat(78)}\n${title}\n${'='.repeat(78)}\n\n${text}\n`).join('\n')
  );
}

export async function buildCli() {
  mkdirSync(dist('schema'), { recursive: true });

  // The program: CommonJS, so the launcher can compile it with vm.Script and a code cache, and so it can
  // be a single executable's main script (Node 20 runs only CommonJS there).
  const program = await build({
    ...common,
    entryPoints: [join(here, 'src', 'bin.ts')],
    outfile: dist('kairoku-playbook.bundle.cjs'),
    format: 'cjs',
    plugins: [workspaceSources, embeddedAssets],
    metafile: true,
  });
  writeFileSync(dist('THIRD-PARTY-NOTICES.txt'), thirdPartyNotices(program.metafile));

  // The launcher: what the `kairoku-playbook` bin runs.
  await build({
    ...common,
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

  // Warm the code cache with a real check, so the functions a check needs are in it.
  rmSync(dist('kairoku-playbook.v8cache'), { force: true });
  const warm = spawnSync(
    process.execPath,
    [dist('kairoku-playbook.js'), 'check', '--format', 'json', join(root, 'playbooks')],
    { env: { ...process.env, KAIROKU_PLAYBOOK_WRITE_CODE_CACHE: '1' }, encoding: 'utf8' },
  );
  if (warm.status !== 0) {
    process.stderr.write(warm.stdout + warm.stderr);
    throw new Error('the built CLI failed to check the sample playbooks');
  }
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
