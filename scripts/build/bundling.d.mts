/** Types of bundling.mjs, for the tests that import it. */
import type { Metafile, Plugin } from 'esbuild';

/** The TypeScript source behind an `@kairoku-playbook/<package>[/<entry>]` import, or undefined. */
export function workspaceSourceOf(specifier: string): string | undefined;
/** The esbuild plugin of workspaceSourceOf. */
export const workspaceSources: Plugin;
/** The licence texts of the third-party packages in a bundle, from esbuild's metafile. */
export function thirdPartyNotices(metafile: Metafile, product: string): string;
/** Prettier's YAML printer in a bundle, without its other languages' plugins. */
export const prettierBundling: Plugin;
