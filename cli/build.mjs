// Bundles the CLI into one file so `check` starts fast (no module resolution at run time), and
// warms a V8 code cache beside it so a cold start does not compile the bundle again.
import { build } from 'esbuild';
import { chmodSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const dist = (name) => new URL(`./dist/${name}`, import.meta.url).pathname;

// The program: CommonJS, so the launcher can compile it with vm.Script and a code cache.
await build({
  entryPoints: [new URL('./src/bin.ts', import.meta.url).pathname],
  outfile: dist('kairoku-playbook.bundle.cjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// The launcher: what the `kairoku-playbook` bin runs.
await build({
  entryPoints: [new URL('./src/launcher.ts', import.meta.url).pathname],
  outfile: dist('kairoku-playbook.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  legalComments: 'none',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
chmodSync(dist('kairoku-playbook.js'), 0o755);

// Warm the code cache with a real check, so the functions a check needs are in it.
rmSync(dist('kairoku-playbook.v8cache'), { force: true });
const warm = spawnSync(
  process.execPath,
  [
    dist('kairoku-playbook.js'),
    'check',
    '--format',
    'json',
    new URL('../playbooks', import.meta.url).pathname,
  ],
  {
    env: { ...process.env, KAIROKU_PLAYBOOK_WRITE_CODE_CACHE: '1' },
    encoding: 'utf8',
  },
);
if (warm.status !== 0) {
  process.stderr.write(warm.stdout + warm.stderr);
  throw new Error('the built CLI failed to check the sample playbooks');
}
