// Bundles the CLI into one file so `check` starts fast (no module resolution at run time).
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

const outfile = new URL('./dist/kairoku-playbook.js', import.meta.url).pathname;
await build({
  entryPoints: [new URL('./src/bin.ts', import.meta.url).pathname],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  legalComments: 'none',
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
chmodSync(outfile, 0o755);
