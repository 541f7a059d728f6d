// Builds the VS Code extension: three esbuild bundles, the Playbooks panel's page and the grammars, all
// under dist/.
//
//   node vscode-extension/build.mjs             dist/extension.js, dist/server.js (the language server),
//                                               dist/cli.js (the CLI, for the Playbooks view's `serve`),
//                                               dist/panel/ (the panel's script and style), dist/syntaxes/
//   node vscode-extension/build.mjs --package   the same, then dist/kairoku-playbook.vsix (offline), which
//                                               must pass vsce without a warning and vsix-rules.mjs
//
// The workspace packages are bundled from their TypeScript sources (as the tests run them), so the
// bundles never lag behind a stale `tsc -b` output. Only `vscode` stays external: the editor provides it.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readVsix, vsixProblems } from './vsix-rules.mjs';
import { prettierBundling, thirdPartyNotices, workspaceSources } from '../scripts/build/bundling.mjs';
import { embeddedAssetsPlugin } from '../cli/build.mjs';
import { buildPanel } from '../panel/build.mjs';

export { workspaceSourceOf } from '../scripts/build/bundling.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const dist = join(here, 'dist');

export const INJECTION_SCOPE = 'source.kairoku-playbook.expression-injection';
export const LANGUAGE_SCOPE = 'source.kairoku-playbook';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  absWorkingDir: root,
  metafile: true,
  plugins: [workspaceSources],
};

/**
 * The panel's files the extension's webviews load (their HTML is the extension's own): the Playbooks view's
 * page, and the graph view's one step graph.
 */
export const PANEL_FILES = ['panel.js', 'panel.css', 'graph.js', 'graph.css'];

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
  rmSync(join(dist, 'cli.js'), { force: true });
  rmSync(join(dist, 'THIRD-PARTY-NOTICES.txt'), { force: true });
  rmSync(join(dist, 'syntaxes'), { recursive: true, force: true });
  rmSync(join(dist, 'panel'), { recursive: true, force: true });
  // The panel first: the CLI embeds it too (serve serves it to browsers).
  await buildPanel();
  mkdirSync(join(dist, 'panel'), { recursive: true });
  for (const file of PANEL_FILES) copyFileSync(join(root, 'panel', 'dist', file), join(dist, 'panel', file));
  const extension = await build({
    ...common,
    entryPoints: [join(here, 'src', 'extension.ts')],
    outfile: join(dist, 'extension.js'),
    external: ['vscode'],
  });
  const server = await build({
    ...common,
    entryPoints: [join(root, 'lsp', 'src', 'stdio.ts')],
    outfile: join(dist, 'server.js'),
    plugins: [workspaceSources, prettierBundling],
  });
  const cli = await build({
    ...common,
    entryPoints: [join(root, 'cli', 'src', 'bin.ts')],
    outfile: join(dist, 'cli.js'),
    // The playground's page stays out: the extension never runs `playground`, and it would take the
    // bundle past the .vsix's per-file budget (vsix-rules.mjs).
    plugins: [
      workspaceSources,
      embeddedAssetsPlugin({ leaveOut: ['playgroundIndex', 'playgroundScript', 'playgroundStyle'] }),
      prettierBundling,
    ],
  });
  const bundled = {
    inputs: { ...extension.metafile.inputs, ...server.metafile.inputs, ...cli.metafile.inputs },
  };
  writeFileSync(
    join(dist, 'THIRD-PARTY-NOTICES.txt'),
    thirdPartyNotices(bundled, 'Kairoku Playbooks for VS Code'),
  );
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
  // What went into the bundles, relative to the repository (tests check none of it is build output).
  return {
    inputs: [...new Set([extension, server, cli].flatMap((b) => Object.keys(b.metafile.inputs)))].sort(),
  };
}

/** vsce's warnings, in the plain form it prints them (`WARNING` first, or a GitHub Actions `::warning::`). */
export function vsceWarnings(output) {
  return output
    .split(/\r?\n/)
    .filter((line) => /^\s*WARNING\b/.test(line) || line.startsWith('::warning::'))
    .map((line) => line.replace(/^\s*WARNING\s*|^::warning::/, '').trim());
}

/**
 * `vsce package`, then the rules of the marketplaces on the .vsix (vsix-rules.mjs). vsce's output is
 * always shown, and any warning of vsce fails the build like an error: vsce answers its own "continue?"
 * with yes when no terminal is attached, so a warning would otherwise ship unnoticed. Offline: vsce does
 * not list dependencies (everything is bundled; package.json's `vsce` says so, for `npx vsce` too).
 */
export function packageExtension({
  cwd = here,
  vsix = join(dist, 'kairoku-playbook.vsix'),
  log = (text) => process.stderr.write(text),
} = {}) {
  rmSync(vsix, { force: true });
  const vsce = createRequire(import.meta.url).resolve('@vscode/vsce/vsce');
  const env = { ...process.env, FORCE_COLOR: '0', npm_config_offline: 'true' };
  // Under GitHub Actions vsce writes warnings as `::warning::` annotations; the plain form is the same test.
  delete env.GITHUB_ACTIONS;
  const result = spawnSync(process.execPath, [vsce, 'package', '-o', vsix], {
    cwd,
    encoding: 'utf8',
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = `${result.stdout}${result.stderr}`;
  log(output);
  const warnings = vsceWarnings(output);
  if (result.status !== 0 || warnings.length > 0) {
    rmSync(vsix, { force: true });
    const failed = result.status !== 0 ? `vsce package failed (exit ${result.status})` : 'vsce package';
    const warned = warnings.length
      ? `; its warnings fail the build too:\n${warnings.map((w) => `  - ${w}`).join('\n')}`
      : '';
    throw new Error(`${failed}${warned}`);
  }
  const problems = vsixProblems(readVsix(readFileSync(vsix)));
  if (problems.length > 0) {
    rmSync(vsix, { force: true });
    throw new Error(`${vsix} breaks the marketplaces' rules:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
  return vsix;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    await buildExtension();
    if (process.argv.includes('--package')) packageExtension();
  } catch (error) {
    process.stderr.write(`vscode-extension/build.mjs: ${error instanceof Error ? error.message : error}\n`);
    process.exitCode = 1;
  }
}
