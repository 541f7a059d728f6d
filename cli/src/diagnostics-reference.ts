/**
 * The diagnostics reference (docs/diagnostics.md): where each code's section is on GitHub, for SARIF's
 * helpUri (the compiler's code-links), and the section itself, for `kairoku-playbook explain`.
 */
import { CODES } from '@kairoku-playbook/compiler';
import { ASSETS } from './assets.js';
import { codeLink } from '@kairoku-playbook/compiler/code-links';
import { REPOSITORY_URL, RELEASE_TAG } from './version.js';

export { diagnosticAnchor, githubAnchor } from '@kairoku-playbook/compiler/code-links';

export type Code = keyof typeof CODES;

export function isCode(code: string): code is Code {
  return Object.hasOwn(CODES, code);
}

/** A code's section of the reference online (the compiler's code-links: the language server's link too). */
export function helpUri(code: Code): string {
  return codeLink(code);
}

/**
 * A code's section of the reference: from its heading to the next section, without the HTML anchor
 * the next section starts with. Links into the repository become links to it on GitHub at this
 * version's tag, so they still lead somewhere in a terminal.
 */
export function referenceSection(markdown: string, code: Code): string | undefined {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`## ${code} `) || line === `## ${code}`);
  if (start < 0) return undefined;
  let end = start + 1;
  while (end < lines.length && !/^#{1,2} |^<a id="[^"]*"><\/a>$/.test(lines[end]!)) end++;
  const section = lines.slice(start, end).join('\n').trim();
  return absoluteLinks(section, ASSETS.diagnosticsReference);
}

/** `[text](target)` links relative to `from` (a file of the repository) made absolute on GitHub. */
function absoluteLinks(markdown: string, from: string): string {
  const folder = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : '';
  return markdown.replace(/\]\(([^)\s]+)\)/g, (whole, target: string) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return whole;
    const [file, anchor] = target.split('#') as [string, string | undefined];
    const path = file === '' ? from : normalise(`${folder}${file}`);
    const url = `${REPOSITORY_URL}/blob/${RELEASE_TAG}/${path}`;
    return `](${anchor === undefined ? url : `${url}#${anchor}`})`;
  });
}

function normalise(path: string): string {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/');
}
