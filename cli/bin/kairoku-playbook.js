#!/usr/bin/env node
// The command npm links. It is committed, not built, because npm links a bin only when its file
// exists at install time, and `npm ci` runs before `npm run build` in a clone of the repository.
// The program itself is the bundle in dist/ (see build.mjs).
import { existsSync } from 'node:fs';

const launcher = new URL('../dist/kairoku-playbook.js', import.meta.url);
if (existsSync(launcher)) {
  await import(launcher.href);
} else {
  process.stderr.write(
    'kairoku-playbook: the CLI is not built yet (no cli/dist/kairoku-playbook.js); ' +
      'run `npm run build` in the repository first\n',
  );
  process.exitCode = 2;
}
