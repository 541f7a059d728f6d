/** Types of build.mjs, for the tests that import it. */
import type { BuildResult } from 'esbuild';

export const PANEL_STYLES: string[];
export const GRAPH_VIEW_STYLES: string[];
/** The extension's graph view's files, graph.js and graph.css, into `outDir` (tests build their own copy). */
export function buildGraphView(outDir: string, options?: { minify?: boolean }): Promise<void>;
/** The panel's page into panel/dist/; esbuild's result for panel.js (with its metafile). */
export function buildPanel(options?: { minify?: boolean }): Promise<BuildResult<{ metafile: true }>>;
