/**
 * `check` judges a playbook under the approval policy (SPEC §4 PB700) found from the playbook's own
 * location: its folder's `.kairoku/policy.yml`, else the nearest folder above's, wherever `check` runs.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from './in-process.js';
import { tempDir } from '../../test/kit/index.js';

const SHIP = 'version: 1\nid: ship\ntitle: Ship\nsteps:\n  image:\n    run: docker push app\n';

const root = tempDir('check-policy-');
const repo = join(root, 'repo');
const elsewhere = join(root, 'elsewhere');
mkdirSync(join(repo, '.kairoku'), { recursive: true });
mkdirSync(join(repo, 'playbooks'));
mkdirSync(elsewhere);
writeFileSync(join(repo, '.kairoku', 'policy.yml'), 'gated: [docker push*]\n');
writeFileSync(join(repo, 'playbooks', 'ship.yml'), SHIP);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const pb700 = (argv: string[], cwd: string) =>
  (
    JSON.parse(runMain(['check', '--format', 'json', ...argv], cwd).stdout) as {
      code: string;
      file: string;
    }[]
  )
    .filter((d) => d.code === 'PB700')
    .map((d) => d.file);

describe("check's approval policy", () => {
  it('is the one beside the playbooks, checked from their folder', () => {
    expect(pb700([], repo)).toEqual(['playbooks/ship.yml']);
  });

  it('is found from the playbook when it is checked by an absolute path from another folder', () => {
    const path = join(repo, 'playbooks', 'ship.yml');
    expect(pb700([path], elsewhere)).toEqual([path]);
    expect(pb700([join(repo, 'playbooks')], elsewhere)).toEqual([path]);
  });

  it('is none where there is none', () => {
    writeFileSync(join(elsewhere, 'ship.playbook.yml'), SHIP);
    expect(pb700([], elsewhere)).toEqual([]);
  });

  it("judges diff's two files each by the policy found from its folder, from any folder", () => {
    const base = join(repo, 'playbooks', 'base.yml');
    writeFileSync(base, SHIP.replace('docker push app', 'npm test'));
    const shipped = JSON.parse(
      runMain(['diff', base, join(repo, 'playbooks', 'ship.yml'), '--format', 'json'], elsewhere).stdout,
    ) as { playbooks: { changes: { kind: string }[] }[] };
    expect(shipped.playbooks[0]!.changes.map((c) => c.kind)).toContain('ungated-path');
  });
});
