import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests run against the sources; only the bare package names map to them (sub-paths stay as published).
    alias: [
      { find: /^@kairoku-playbook\/grammar$/, replacement: here('./grammar/src/index.ts') },
      { find: /^@kairoku-playbook\/compiler$/, replacement: here('./compiler/src/index.ts') },
      { find: /^@kairoku-playbook\/runtime$/, replacement: here('./runtime/src/index.ts') },
      { find: /^@kairoku-playbook\/lsp$/, replacement: here('./lsp/src/index.ts') },
    ],
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
