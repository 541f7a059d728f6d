import { NODE_SUMMARY_KEYS } from './node-test.js';
import { addCounts, zeroCounts } from './types.js';
import type { Counts, LineReader } from './types.js';

const VERSION = /^TAP version \d+\s*$/;
/** a top-level test point; subtests are indented and counted by the line that closes them */
const POINT = /^(not )?ok \d+\b(.*)$/;
const DIRECTIVE = /(?<!\\)#\s*(skip|todo)\S*/i;
/** a harness summary after the points: node's `# pass 3`, tape's `# pass  2` */
const SUMMARY = /^# ([a-z_]+)\s+(\d+(?:\.\d+)?)\s*$/;

/**
 * TAP: `ok` / `not ok` points, with `# SKIP` (skipped) and `# TODO` (todo, whether it passed or not)
 * directives. When the stream ends with a summary (node --test's TAP reporter, tape), the summary is
 * what counts and that stream's points are dropped, so nothing is counted twice; each `TAP version`
 * line starts a new stream.
 */
export function tapReader(): LineReader {
  let committed: Counts | undefined;
  /** points of the current stream, until its summary replaces them or the stream ends */
  let points: Counts | undefined;
  return {
    runner: 'tap',
    line(text) {
      if (VERSION.test(text)) {
        if (points) committed = addCounts(committed ?? zeroCounts(), points);
        points = undefined;
        return;
      }
      const point = POINT.exec(text);
      if (point) {
        points ??= zeroCounts();
        const directive = DIRECTIVE.exec(point[2]!)?.[1]?.toLowerCase();
        if (directive === 'skip') points.skipped++;
        else if (directive === 'todo') points.todo++;
        else if (point[1]) points.failed++;
        else points.passed++;
        return;
      }
      const summary = SUMMARY.exec(text);
      const key = summary ? NODE_SUMMARY_KEYS[summary[1]!] : undefined;
      if (!summary || key === undefined) return;
      points = undefined;
      committed ??= zeroCounts();
      if (key) committed[key] += Number(summary[2]);
    },
    counts() {
      if (!committed && !points) return undefined;
      return addCounts(addCounts(zeroCounts(), committed ?? zeroCounts()), points ?? zeroCounts());
    },
  };
}
