import { defineConfig } from 'vitest/config';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Every entry a workspace package publishes (`@kairoku-playbook/compiler`, `…/compiler/disk`,
 * `…/runtime/backends`, …) → the TypeScript source it is built from (`./dist/X.js` ← `src/X.ts` or `.tsx`), so
 * tests run on the sources alone: an entry left to its built copy would load a second, possibly stale,
 * copy of the package beside the source one (two `FileWriteError` classes, say). Entries that are not
 * built (grammar's `./schema/*`) resolve as published. The CLI and the extension bundle the same way
 * (scripts/build/bundling.mjs).
 */
function workspaceSources(packages: readonly string[]): { find: RegExp; replacement: string }[] {
  const aliases: { find: RegExp; replacement: string }[] = [];
  for (const name of packages) {
    const manifest = JSON.parse(readFileSync(here(`./${name}/package.json`), 'utf8')) as {
      exports: Record<string, string | { default?: string }>;
    };
    for (const [entry, target] of Object.entries(manifest.exports)) {
      const built = typeof target === 'string' ? target : target.default;
      const source = /^\.\/dist\/(.+)\.js$/.exec(built ?? '');
      if (!source || entry.includes('*')) continue;
      // `.ts`, or `.tsx` for the panel's components
      const path = [here(`./${name}/src/${source[1]}.ts`), here(`./${name}/src/${source[1]}.tsx`)].find(
        existsSync,
      );
      if (!path) throw new Error(`${name}/package.json: ${entry} → ${built} has no source in src/`);
      const specifier = `@kairoku-playbook/${name}${entry === '.' ? '' : entry.slice(1)}`;
      aliases.push({ find: new RegExp(`^${specifier.replace(/[/.]/g, '\\$&')}$`), replacement: path });
    }
  }
  return aliases;
}

export default defineConfig({
  resolve: {
    alias: workspaceSources(['protocol', 'grammar', 'compiler', 'machine', 'runtime', 'lsp', 'panel']),
  },
  test: {
    include: ['**/test/**/*.test.ts', 'docs/**/*.test.ts'],
    // test/e2e (a real VS Code) runs on its own after these: `npm run test:e2e`, test/e2e/vitest.config.ts.
    exclude: ['**/node_modules/**', '**/dist/**', 'test/e2e/**'],
    // A guard against hangs, not a timing assertion: vitest's 5 s default failed tests that start processes
    // whenever the two cores were busy (a load of 15 made bad-input, property and paseo tests time out).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
