/** Types of build.mjs, for the tests and the extension's build that import it. */
import type { Plugin } from 'esbuild';

/** cli/src/assets.ts with the texts it would read written into it, less those `leaveOut` names. */
export function embeddedAssetsPlugin(options?: { leaveOut?: string[] }): Plugin;
/** Every asset embedded: the CLI's own bundle. */
export const embeddedAssets: Plugin;
/** The ASSETS table of cli/src/assets.ts (name → path in the repository), read from its source. */
export function assetPaths(): Record<string, string>;
/** The CLI's bundles into cli/dist/ (and the panel's and the playground's pages they embed). */
export function buildCli(): Promise<void>;
/** The single executable for this platform, into cli/dist/sea/: its path. */
export function buildSingleExecutable(): string;
