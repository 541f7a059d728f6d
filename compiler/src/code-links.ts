/**
 * Where the project lives online, and the one home of the link to a diagnostic code's explanation:
 * `kairoku-playbook explain` prints it, SARIF gives it as each rule's `helpUri`, and the language
 * server as each diagnostic's `codeDescription.href`. It is the code's section of docs/diagnostics.md
 * in the repository, as it is at this version's tag (what a user of this version should read). Imports
 * only the code table, so any bundle can take it (`@kairoku-playbook/compiler/code-links`).
 */
import { CODES } from './codes.js';
import type { Code } from './codes.js';

/** The version of the toolchain: the npm package and the CLI (--version, SARIF); its tag names the docs. */
export const VERSION = '0.1.0';

/** The canonical repository. */
export const REPOSITORY_URL = 'https://github.com/kairoku/kairoku-playbook';

/** The tag this version is released under. */
export const RELEASE_TAG = `v${VERSION}`;

/** The diagnostics reference, in the repository: every code's section. */
export const DIAGNOSTICS_REFERENCE = 'docs/diagnostics.md';

/** A file of the repository as it is at this version's tag. */
export function repositoryFileUrl(path: string): string {
  return `${REPOSITORY_URL}/blob/${RELEASE_TAG}/${path}`;
}

/**
 * The anchor GitHub gives a Markdown heading (as github-slugger makes it): lowercased, every character
 * that is not a letter, mark, digit, connector (`_`), hyphen or space dropped, spaces made hyphens.
 * Inline markup is assumed gone (`heading` is the heading's text).
 */
export function githubAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchor of a code's section: its heading is `## CODE title` (docs/docs.test.ts holds it to that). */
export function diagnosticAnchor(code: Code): string {
  return githubAnchor(`${code} ${CODES[code].title}`);
}

/** A code's section of the reference online; a string that is no code leads to the reference's top. */
export function codeLink(code: string): string {
  const page = repositoryFileUrl(DIAGNOSTICS_REFERENCE);
  return Object.hasOwn(CODES, code) ? `${page}#${diagnosticAnchor(code as Code)}` : page;
}
