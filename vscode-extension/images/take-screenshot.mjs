// Takes the README's screenshot (images/screenshot.png) of the packaged extension in a real VS Code:
//
//   npm run package:vscode && node scripts/setup-vscode-e2e.mjs   # the .vsix, and code-server (once)
//   node vscode-extension/images/take-screenshot.mjs
//
// screenshot.ts drives code-server with the end-to-end test's helpers (TypeScript), so it is bundled here
// with esbuild first (packages and .mjs modules stay imports) and run from a temporary file.
import { build } from 'esbuild';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const vsix = join(here, '..', 'dist', 'kairoku-playbook.vsix');
if (!existsSync(vsix)) throw new Error(`${vsix} is missing: run \`npm run package:vscode\` first`);

// Inside the repository, so that the bundle's bare imports (playwright-core) resolve from its node_modules.
const out = mkdtempSync(join(here, '..', 'dist', 'screenshot-'));
try {
  const script = join(out, 'screenshot.mjs');
  await build({
    entryPoints: [join(here, 'screenshot.ts')],
    outfile: script,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
    plugins: [
      {
        // Plain .mjs modules stay themselves: setup-vscode-e2e.mjs finds its cache from its own location.
        name: 'mjs-external',
        setup(builder) {
          builder.onResolve({ filter: /\.mjs$/ }, (args) => ({
            path: pathToFileURL(join(args.resolveDir, args.path)).href,
            external: true,
          }));
        },
      },
    ],
  });
  const { takeScreenshot } = await import(pathToFileURL(script).href);
  const png = join(here, 'screenshot.png');
  await takeScreenshot(root, vsix, png);
  process.stdout.write(`${png}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
