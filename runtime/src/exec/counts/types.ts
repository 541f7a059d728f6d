/** The four counts a check step exposes (SPEC §3.1), off a test runner's summary. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  todo: number;
}

/**
 * One runner's reader: it is fed the output line by line (colour codes already stripped) and says what
 * it has counted so far. `counts()` does not change the reader, so it may be asked at any time; it is
 * undefined until the runner's summary has been seen.
 */
export interface LineReader {
  readonly runner: string;
  line(text: string): void;
  counts(): Counts | undefined;
}

export function zeroCounts(): Counts {
  return { passed: 0, failed: 0, skipped: 0, todo: 0 };
}

export function addCounts(into: Counts, more: Counts): Counts {
  into.passed += more.passed;
  into.failed += more.failed;
  into.skipped += more.skipped;
  into.todo += more.todo;
  return into;
}

/** A reader whose runner prints one summary line per run: each recognised line adds to the total. */
export function summingReader(runner: string, read: (text: string) => Counts | undefined): LineReader {
  let total: Counts | undefined;
  return {
    runner,
    line(text) {
      const counts = read(text);
      if (counts) total = addCounts(total ?? zeroCounts(), counts);
    },
    counts: () => (total ? { ...total } : undefined),
  };
}

/**
 * Reads `N word` parts (`3 passed`, `1 skipped`) into counts; `map` names the count each word adds
 * to (null: ignored, such as jest's `total`). Undefined when a part is not of that form, so a line
 * that only looks like a summary is not taken for one.
 */
export function readParts(parts: string[], map: Record<string, keyof Counts | null>): Counts | undefined {
  const counts = zeroCounts();
  for (const part of parts) {
    const match = /^(\d+) ([a-z]+)$/.exec(part.trim());
    if (!match) return undefined;
    const key = map[match[2]!];
    if (key === undefined) return undefined;
    if (key) counts[key] += Number(match[1]);
  }
  return counts;
}
