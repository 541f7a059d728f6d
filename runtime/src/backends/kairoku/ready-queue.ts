/**
 * Ready dispatches, indexed by what a runner must match to take one: the repository, and the machine
 * when the dispatch asks for one. A claim looks only at the lanes of the runner's repositories (and
 * its machine), first in, first out, so its cost does not grow with the number of dispatches or runs
 * queued. Entries are removed lazily: a dispatch canceled while queued stays in its lane until a claim
 * walks past it (`isLive` says so), which keeps cancel O(1) and costs each entry one skip at most.
 */
export class ReadyQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();

  constructor(private readonly isLive: (item: T) => boolean) {}

  push(item: T, repository: string, machine: string | null): void {
    const key = laneKey(repository, machine);
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = new Lane()));
    lane.push(item);
  }

  /**
   * Takes up to `max` live items a runner on `machine` serving `repositories` may have: from each
   * repository, those asking for this machine first, then those asking for none.
   */
  take(repositories: readonly string[], machine: string, max: number): T[] {
    const taken: T[] = [];
    for (const repository of repositories) {
      for (const key of [laneKey(repository, machine), laneKey(repository, null)]) {
        const lane = this.lanes.get(key);
        if (!lane) continue;
        while (taken.length < max) {
          const item = lane.shift(this.isLive);
          if (item === undefined) break;
          taken.push(item);
        }
        if (lane.empty) this.lanes.delete(key);
        if (taken.length >= max) return taken;
      }
    }
    return taken;
  }

  /** Live items waiting (walks every lane: for views and tests, not for claims). */
  size(): number {
    let size = 0;
    for (const lane of this.lanes.values()) size += lane.count(this.isLive);
    return size;
  }
}

function laneKey(repository: string, machine: string | null): string {
  return machine === null ? `${repository}\n` : `${repository}\n${machine}`;
}

/** A FIFO with an index walk; the array is compacted once the consumed head is most of it. */
class Lane<T> {
  private items: T[] = [];
  private head = 0;

  get empty(): boolean {
    return this.head >= this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(isLive: (item: T) => boolean): T | undefined {
    while (this.head < this.items.length) {
      const item = this.items[this.head]!;
      this.items[this.head++] = undefined as T;
      if (this.head > 1024 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      if (isLive(item)) return item;
    }
    return undefined;
  }

  count(isLive: (item: T) => boolean): number {
    let n = 0;
    for (let i = this.head; i < this.items.length; i++) if (isLive(this.items[i]!)) n++;
    return n;
  }
}
