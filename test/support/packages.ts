/**
 * The workspace packages and the layering between them (issue 14 §4), read by test/layering.test.ts and
 * test/homonyms.test.ts. Every folder listed under `workspaces` in the root package.json must have a row
 * here: a new package fails both tests until someone decides what it may import.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(new URL('../../', import.meta.url).pathname);

/**
 * Package folder → the packages (folders) its sources may import; `undefined`: any of them.
 * - protocol is the bottom: what the parts say to each other (serve's API and its schemas, the graph
 *   answer, the JSON diagnostic, JSON-RPC ids), pure types and data; every package may read it.
 * - grammar imports none of ours but the protocol; the compiler reads only the grammar (and the protocol).
 * - machine (the rules, pure: run state, transition, expressions, policy, explorer) stands on the compiler
 *   and the grammar; its sources import no Node built-in either (test/layering.test.ts).
 * - lsp and runtime stand on the machine, the compiler and the grammar, side by side (neither imports the
 *   other).
 * - panel (the Playbooks panel) is a web page that talks to a run host: only the protocol.
 * - vscode-extension talks to the language server over LSP, which it starts (no lsp, compiler or
 *   grammar code of its own); it may show the panel.
 * - cli is the top: it puts everything together.
 */
export const MAY_IMPORT: Readonly<Record<string, readonly string[] | undefined>> = {
  protocol: [],
  grammar: [],
  compiler: ['grammar', 'protocol'],
  machine: ['compiler', 'grammar', 'protocol'],
  lsp: ['machine', 'compiler', 'grammar', 'protocol'],
  runtime: ['machine', 'compiler', 'grammar', 'protocol'],
  panel: ['protocol'],
  'vscode-extension': ['panel', 'protocol'],
  // the page bundles the pure parts of the others (the machine, and its #check-json and #graph aliases)
  playground: ['compiler', 'grammar', 'machine', 'panel', 'lsp', 'cli', 'protocol'],
  cli: undefined,
};

/** The workspace folders, as the root package.json lists them. */
export function workspaceFolders(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces;
}

/** Workspace folders with no row in MAY_IMPORT, each as the sentence a failing test prints. */
export function packagesWithoutRule(): string[] {
  return workspaceFolders()
    .filter((folder) => !Object.hasOwn(MAY_IMPORT, folder))
    .map(
      (folder) =>
        `${folder}: a workspace package with no layering rule; add it to MAY_IMPORT in test/support/packages.ts with the packages it may import`,
    );
}

/** The workspace folders that have a rule (the others fail `packagesWithoutRule`). */
export function packages(): string[] {
  return workspaceFolders().filter((folder) => Object.hasOwn(MAY_IMPORT, folder));
}

/** Whether `from`'s sources may import `to`'s. */
export function mayImport(from: string, to: string): boolean {
  if (from === to) return true;
  const allowed = MAY_IMPORT[from];
  return allowed === undefined || allowed.includes(to);
}
