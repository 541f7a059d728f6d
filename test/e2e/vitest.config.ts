// The end-to-end test in a real VS Code: alone, after the other tests (`npm run test:e2e`), one file, one
// worker, so that code-server, Chromium and the language server do not compete with the unit tests for the
// machine's cores. The root config leaves test/e2e out.
import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../../', import.meta.url)),
    include: ['test/e2e/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', '.cache/**'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
