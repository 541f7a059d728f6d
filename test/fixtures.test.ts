import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, describeDiagnostics, fixtureNames, validateFixture } from './support/fixtures.js';

// Set UPDATE_FIXTURES=1 to write the .out files from the current output; then read every change.
const update = process.env.UPDATE_FIXTURES === '1';

describe('test/fixtures/ok: clean playbooks give no diagnostics at all', () => {
  for (const name of fixtureNames('ok')) {
    it(name, () => {
      const { diagnostics, sources } = validateFixture('ok', name);
      expect(describeDiagnostics(diagnostics, sources)).toBe('');
    });
  }
});

describe('test/fixtures/err: each gives exactly the diagnostics in the .out file beside it', () => {
  for (const name of fixtureNames('err')) {
    it(name, () => {
      const { diagnostics, sources } = validateFixture('err', name);
      const actual = `${describeDiagnostics(diagnostics, sources)}\n`;
      const expectedPath = join(FIXTURES, 'err', `${name.replace(/\.ya?ml$/, '')}.out`);
      if (update) writeFileSync(expectedPath, actual);
      expect(existsSync(expectedPath), `${expectedPath} is missing`).toBe(true);
      expect(actual).toBe(readFileSync(expectedPath, 'utf8'));
      expect(diagnostics.length).toBeGreaterThan(0);
    });
  }
});
