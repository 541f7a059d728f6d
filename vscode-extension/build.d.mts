/** Types of build.mjs, for the tests that import it. */
export const INJECTION_SCOPE: string;
export const LANGUAGE_SCOPE: string;
/** The TypeScript source behind an `@kairoku-playbook/<package>[/<entry>]` import, or undefined. */
export function workspaceSourceOf(specifier: string): string | undefined;
export function injectionForExtension<T extends { injectionSelector: string }>(grammar: T): T;
/** Builds the bundles and grammars; returns every file that went into the bundles, relative to the repository. */
export function buildExtension(): Promise<{ inputs: string[] }>;
/** vsce's warnings in its output. */
export function vsceWarnings(output: string): string[];
/** `vsce package` (failing on any warning), then vsix-rules.mjs; returns the .vsix path. */
export function packageExtension(options?: {
  cwd?: string;
  vsix?: string;
  log?: (text: string) => void;
}): string;
