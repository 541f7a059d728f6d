/**
 * Warms the symbol index of edited documents once their diagnostics are out, so the first hover or
 * completion after an edit does not pay for it (~100 ms on a 2,000-step playbook). In slices of a few ms
 * between turns of the event loop, so a request that arrives meanwhile is answered after one slice (it
 * finishes the index itself if it needs it).
 */

/** A document as it was validated: a newer version is analysed (and warmed) by its own validation. */
export interface ValidatedDocument {
  uri: string;
  version: number | undefined;
}

const SLICE_MS = 4;

export function warmUpInSlices(
  documents: ValidatedDocument[],
  options: {
    /** whether the document is still at the version validated */
    current: (document: ValidatedDocument) => boolean;
    /** builds some of the document's index for about `budgetMs`: true once it is built */
    warm: (uri: string, budgetMs: number) => boolean;
    log: (line: string) => void;
  },
): void {
  const queue = [...documents];
  const slice = () => {
    const next = queue[0];
    if (!next) return;
    let done = true;
    try {
      if (options.current(next)) done = options.warm(next.uri, SLICE_MS);
    } catch (error) {
      options.log(`warming the symbol index of ${next.uri} failed: ${String(error)}`);
    }
    if (done) queue.shift();
    if (queue.length) setImmediate(slice);
  };
  setImmediate(slice);
}
