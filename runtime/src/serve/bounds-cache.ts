/**
 * The worst case of a run of each playbook, for the start form (issue 26, `GET /api/v1/bounds`): worked
 * out once per version of the playbook (its IR's sha256) and kept; a second request while the first is
 * working waits for the same answer.
 */
import type { Ir } from '@kairoku-playbook/compiler';
import { headlineBounds, withBounds } from '@kairoku-playbook/machine';
import type { RunBounds } from '@kairoku-playbook/protocol';

/** How many playbook versions' bounds are kept (the oldest go first). */
const KEPT = 100;

export type BoundsOf = (file: string, ir: Ir) => Promise<RunBounds | undefined>;

/** machine's `withBounds` in this process: what `compile` writes into the IR. */
export function boundsInProcess(_file: string, ir: Ir): Promise<RunBounds | undefined> {
  const bounds = withBounds(ir).bounds;
  return Promise.resolve(bounds && headlineBounds(bounds));
}

export class BoundsCache {
  private readonly kept = new Map<string, Promise<RunBounds | undefined>>();

  constructor(private readonly compute: BoundsOf) {}

  of(file: string, ir: Ir): Promise<RunBounds | undefined> {
    const key = `${file}\n${ir.source.sha256}`;
    let answer = this.kept.get(key);
    if (!answer) {
      answer = this.compute(file, ir);
      // a failure is not kept: the next request tries again
      answer.catch(() => this.kept.delete(key));
      this.kept.set(key, answer);
      if (this.kept.size > KEPT) this.kept.delete(this.kept.keys().next().value!);
    }
    return answer;
  }
}
