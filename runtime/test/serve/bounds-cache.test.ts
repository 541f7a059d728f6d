import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { BoundsCache, boundsInProcess } from '../../src/serve/bounds-cache.js';

const pr = compilePlaybook(
  'pr.yml',
  readFileSync(fileURLToPath(new URL('../../../playbooks/pr.yml', import.meta.url)), 'utf8'),
).ir!;
const changed: Ir = { ...pr, source: { ...pr.source, sha256: 'f'.repeat(64) } };

describe('BoundsCache', () => {
  it('works a version of a playbook out once, also for asks that come while it works', async () => {
    let computed = 0;
    const cache = new BoundsCache(async (file, ir) => {
      computed++;
      return boundsInProcess(file, ir);
    });
    const [first, second] = await Promise.all([cache.of('pr.yml', pr), cache.of('pr.yml', pr)]);
    expect(first).toEqual({
      explored: true,
      agentTurns: 17,
      gateDecisions: 3,
      chainTurns: expect.any(Number),
      longestMs: 14_400_000,
    });
    expect(second).toBe(first);
    expect(computed).toBe(1);
    await cache.of('pr.yml', changed);
    expect(computed).toBe(2);
  });

  it('keeps no failure: the next ask tries again', async () => {
    let calls = 0;
    const cache = new BoundsCache(() =>
      ++calls === 1 ? Promise.reject(new Error('killed')) : Promise.resolve(undefined),
    );
    await expect(cache.of('pr.yml', pr)).rejects.toThrow('killed');
    await expect(cache.of('pr.yml', pr)).resolves.toBeUndefined();
    expect(calls).toBe(2);
  });
});
