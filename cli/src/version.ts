/**
 * The toolchain's version and where the project lives: the one place the CLI, its SARIF output and
 * the VS Code extension's build read them from. This module imports nothing, so any bundle can take it.
 * cli/package.json must say the same (cli/test/distribution.test.ts checks it).
 */

/** The version of the npm package and the CLI, printed by --version and written into SARIF. */
export const VERSION = '0.1.0';

/** The canonical repository. */
export const REPOSITORY_URL = 'https://github.com/kairoku/kairoku-playbook';

/** The tag this version is released under. */
export const RELEASE_TAG = `v${VERSION}`;

/** A file of the repository as it is at this version's tag (what a user of this version should read). */
export function repositoryFileUrl(path: string): string {
  return `${REPOSITORY_URL}/blob/${RELEASE_TAG}/${path}`;
}
