/**
 * The project's Prettier options for a file, as Prettier itself resolves them from the file's folder
 * upwards (`.prettierrc` in any of its forms, `prettier.config.*`, the `prettier` key of package.json,
 * `overrides` for the file, and `.editorconfig`): the disk is read here, never in the language service,
 * which formats with what it is given. A file the nearest `.prettierignore` lists is not formatted, as
 * Prettier does not format it (the CLI's `format`, and Format Document in an editor). No network: a config naming a shared config package resolves it
 * from node_modules or fails, and the failure is said.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Prettier from 'prettier';
import { loadPrinter } from '../service/features/formatting.js';
import type { PrettierOptions } from '../service/features/formatting.js';

let resolver: Promise<typeof Prettier> | undefined;

/** Prettier's Node entry (its config resolution), loaded once. */
function loadResolver(): Promise<typeof Prettier> {
  resolver ??= import('prettier').catch((error: unknown) => {
    resolver = undefined;
    throw error;
  });
  return resolver;
}

/**
 * Loads everything a first Format Document needs (config resolution, printer, YAML plugin) ahead of it: the
 * server calls this once its first diagnostics are out. A failure here is left for the format to report.
 */
export async function preloadFormatter(): Promise<void> {
  await Promise.all([loadResolver(), loadPrinter()]).catch(() => undefined);
}

export type ResolvedPrettierOptions =
  | { options: PrettierOptions | null }
  | { refused: string }
  /** the file is listed in the nearest `.prettierignore`: left as it is, as Prettier leaves it */
  | { ignored: string };

/** The nearest `.prettierignore` from the file's folder upwards (Prettier reads its patterns from its folder). */
function nearestIgnoreFile(path: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const candidate = join(dir, '.prettierignore');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The options for a file on disk; null when no config applies (Prettier's defaults). */
export async function prettierOptionsForPath(path: string): Promise<ResolvedPrettierOptions> {
  try {
    const { getFileInfo, resolveConfig } = await loadResolver();
    const ignorePath = nearestIgnoreFile(path);
    if (ignorePath !== undefined && (await getFileInfo(path, { ignorePath })).ignored)
      return { ignored: ignorePath };
    // (not cached: a long-running server sees an edited .prettierrc at once)
    return { options: await resolveConfig(path, { editorconfig: true, useCache: false }) };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
    return { refused: `not formatted: the Prettier config for ${path} cannot be read (${message})` };
  }
}

/** The same for a document: a file URI's path; Prettier's defaults for any other document. */
export async function prettierOptionsFor(uri: string): Promise<ResolvedPrettierOptions> {
  if (!uri.startsWith('file:')) return { options: null };
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    return { options: null };
  }
  return prettierOptionsForPath(path);
}
