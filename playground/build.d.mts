/** Types of build.mjs, for the tests that import it. */
import type { BuildResult } from 'esbuild';

/** docs/playground/, where the page is built. */
export const PLAYGROUND_DIST: string;
/** An example the page offers: where it comes from (`playbooks/pr.yml`, `docs/reference.md:12`), its file name and text. */
export interface PlaygroundExample {
  origin: string;
  file: string;
  text: string;
}
/** The sample playbooks and the docs' runnable one-file examples, each once, pr.yml first. */
export function examples(): Promise<PlaygroundExample[]>;
/** The page into docs/playground/; esbuild's result for playground.js (with its metafile). */
export function buildPlayground(options?: { minify?: boolean }): Promise<BuildResult<{ metafile: true }>>;
/** engine.ts alone, bundled for Node into `outfile`. */
export function buildEngineForNode(outfile: string): Promise<void>;
