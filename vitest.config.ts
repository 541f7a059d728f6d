import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@kairoku-playbook/grammar': here('./grammar/src/index.ts'),
      '@kairoku-playbook/compiler': here('./compiler/src/index.ts'),
    },
  },
  test: {
    include: ['**/test/**/*.test.ts', 'docs/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    pool: 'forks',
    maxWorkers: 2,
  },
});
