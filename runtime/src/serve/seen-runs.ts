import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../store/atomic-write.js';

/** Completed runs whose tab was opened (a completed run stays green until then), kept across restarts. */
export class SeenRuns {
  private readonly ids: Set<string>;

  constructor(private readonly path: string) {
    let ids: string[] = [];
    try {
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
      if (Array.isArray(parsed)) ids = parsed.filter((x): x is string => typeof x === 'string');
    } catch {
      // none yet
    }
    this.ids = new Set(ids);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    try {
      mkdirSync(join(this.path, '..'), { recursive: true, mode: 0o700 });
      writeFileAtomic(this.path, `${JSON.stringify([...this.ids])}\n`);
    } catch {
      // (best effort: a tab marked seen in memory, written with the next one; a full disk is no 500)
    }
  }
}
