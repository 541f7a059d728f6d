/**
 * PB802's hint names the check as the person would type it where `check` ran: `npx kairoku-playbook`
 * in a repository that installed the package (issue 23: a bare `kairoku-playbook` is not on the PATH
 * there), the bare name elsewhere. The language server says the same (lsp/test/server/parity.test.ts).
 */
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from './in-process.js';
import { REPO, tempDir } from '../../test/kit/index.js';

const BROKEN = join(REPO, 'test/fixtures/err/pb802-test-of-broken-playbook');

function brokenRepository(manifest: object | undefined): string {
  const folder = tempDir('kp-pb802-');
  cpSync(BROKEN, join(folder, 'playbooks'), { recursive: true });
  if (manifest) writeFileSync(join(folder, 'package.json'), JSON.stringify(manifest));
  return folder;
}

function pb802(stdout: string): string | undefined {
  return stdout.split('\n').find((line) => line.includes('PB802'));
}

describe("PB802's hint", () => {
  it('says npx kairoku-playbook where the package is a dependency', () => {
    const folder = brokenRepository({
      devDependencies: { 'kairoku-playbook': 'file:kairoku-playbook-0.1.0.tgz' },
    });
    const { code, stdout } = runMain(['check'], folder);
    expect(code).toBe(1);
    expect(pb802(stdout)).toMatch(/fix it first \(npx kairoku-playbook check playbooks\/ship\.yml\)$/);
  });

  it('says kairoku-playbook where nothing installed it here', () => {
    const folder = brokenRepository({ name: 'other', devDependencies: { typescript: '5' } });
    const { stdout } = runMain(['check'], folder);
    expect(pb802(stdout)).toMatch(/fix it first \(kairoku-playbook check playbooks\/ship\.yml\)$/);
  });
});
