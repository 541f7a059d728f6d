// Builds the VS Code extension: two esbuild bundles and the grammars, all under dist/.
//
//   node vscode-extension/build.mjs             dist/extension.js, dist/server.js, dist/syntaxes/
//   node vscode-extension/build.mjs --package   the same, then dist/kairoku-playbook.vsix (offline)
//
// The workspace packages are bundled from their TypeScript sources (as the tests run them), so the
// bundles never lag behind a stale `tsc -b` output. Only `vscode` stays external: the editor provides it.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = join(here, 'dist');

export const INJECTION_SCOPE = 'source.kairoku-playbook.expression-injection';
export const LANGUAGE_SCOPE = 'source.kairoku-playbook';

/**
 * `@kairoku-playbook/<package>[/<entry>]` → the TypeScript source behind that entry of the package's
 * `exports`: `./dist/<path>.js` is built from `src/<path>.ts`. So the bundles need no `tsc -b` first (a
 * fresh clone packages right after `npm ci`) and never bundle a stale or second copy of a module.
 * Entries that are not built (the JSON Schema under `grammar/schema/`) resolve as published.
 */
export function workspaceSourceOf(specifier) {
  const match = /^@kairoku-playbook\/([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (!match) return undefined;
  const [, name, entry] = match;
  const packageDir = join(root, name);
  if (!existsSync(join(packageDir, 'package.json'))) return undefined;
  const { exports } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const target = exports?.[entry ? `./${entry}` : '.'];
  const built = typeof target === 'string' ? target : target?.default;
  const source = /^\.\/dist\/(.+)\.js$/.exec(built ?? '');
  if (!source) return undefined;
  const path = join(packageDir, 'src', `${source[1]}.ts`);
  if (!existsSync(path)) throw new Error(`${specifier}: ${built} has no source ${path}`);
  return path;
}

const workspaceSources = {
  name: 'workspace-sources',
  setup(builder) {
    builder.onResolve({ filter: /^@kairoku-playbook\// }, (args) => {
      const path = workspaceSourceOf(args.path);
      return path ? { path } : undefined;
    });
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [workspaceSources],
};

/**
 * The injection grammar of grammar/textmate, made to apply inside the playbook language too: its selector
 * names `source.yaml`, and the playbook grammar includes YAML without that scope, so the same selector is
 * added for `source.kairoku-playbook` (nothing changes when grammar/textmate already has it).
 */
export function injectionForExtension(grammar) {
  const clauses = grammar.injectionSelector.split(',').map((clause) => clause.trim());
  const extra = clauses
    .filter((clause) => /(^|\s|:)source\.yaml(\s|$)/.test(clause))
    .map((clause) => clause.replace(/source\.yaml/, LANGUAGE_SCOPE))
    .filter((clause) => !clauses.includes(clause));
  return { ...grammar, injectionSelector: [...clauses, ...extra].join(', ') };
}

export async function buildExtension() {
  rmSync(join(dist, 'extension.js'), { force: true });
  rmSync(join(dist, 'server.js'), { force: true });
  rmSync(join(dist, 'syntaxes'), { recursive: true, force: true });
  await build({
    ...common,
    entryPoints: [join(here, 'src', 'extension.ts')],
    outfile: join(dist, 'extension.js'),
    external: ['vscode'],
  });
  await build({
    ...common,
    entryPoints: [join(root, 'lsp', 'src', 'stdio.ts')],
    outfile: join(dist, 'server.js'),
  });
  mkdirSync(join(dist, 'syntaxes'), { recursive: true });
  const injection = JSON.parse(
    readFileSync(join(root, 'grammar', 'textmate', 'playbook.injection.tmLanguage.json'), 'utf8'),
  );
  if (injection.scopeName !== INJECTION_SCOPE)
    throw new Error(`the injection grammar's scope is ${injection.scopeName}, not ${INJECTION_SCOPE}`);
  writeFileSync(
    join(dist, 'syntaxes', 'playbook.injection.tmLanguage.json'),
    `${JSON.stringify(injectionForExtension(injection), null, 2)}\n`,
  );
}

/** `vsce package`, offline: no dependency listing (everything is bundled), no repository or license prompt. */
export function packageExtension() {
  const vsix = join(dist, 'kairoku-playbook.vsix');
  rmSync(vsix, { force: true });
  const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');
  const result = spawnSync(
    process.execPath,
    [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', vsix],
    { cwd: here, encoding: 'utf8', env: { ...process.env, npm_config_offline: 'true' } },
  );
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error('vsce package failed');
  }
  return vsix;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildExtension();
  if (process.argv.includes('--package')) packageExtension();
}
