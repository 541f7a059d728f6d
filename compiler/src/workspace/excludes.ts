/**
 * Paths that are not playbooks (issue 23): `.kairoku/exclude` in a workspace lists globs, one a line,
 * of files and folders that discovery leaves out — a repository's test fixtures, vendored examples —
 * so `check`, the language server, the MCP server, `serve` and the panel agree on what the playbooks
 * are. `#` starts a comment; blank lines are ignored. The syntax is a small part of `.gitignore`'s:
 * `*` matches within one path segment, `**` across segments, `?` one character; a pattern with a `/`
 * in it (other than at its end) is anchored at the workspace (the folder holding `.kairoku/`), one
 * without matches a name at any depth; a trailing `/` matches folders only. A folder that matches
 * leaves out everything below it. No I/O here: the text is passed in.
 */

/** Where a workspace keeps its excludes, relative to the folder that holds `.kairoku/`. */
export const EXCLUDE_FILE = '.kairoku/exclude';

/** Whether a path (absolute, under the workspace) is left out; `isDirectory` for a folder. */
export type ExcludeTest = (path: string, isDirectory: boolean) => boolean;

interface Pattern {
  regex: RegExp;
  directoryOnly: boolean;
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return out;
}

/** A pattern of `parseExcludes` (a line that is neither blank nor a comment); `/` alone names nothing. */
function parsePattern(line: string): Pattern | undefined {
  let text = line;
  const directoryOnly = text.endsWith('/');
  if (directoryOnly) text = text.replace(/\/+$/, '');
  if (text === '') return undefined;
  const anchored = text.includes('/');
  const body = globToRegex(text.replace(/^\//, ''));
  return { regex: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), directoryOnly };
}

/** The patterns of an exclude file's text. */
export function parseExcludes(text: string): string[] {
  return text
    .split(/\r?\n|\r/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * The test of a workspace's excludes: `base` is the folder holding `.kairoku/`, `text` the exclude
 * file's text. A path outside `base` is never excluded. A file is left out when it matches, or when a
 * folder it is in does (so a file opened in an editor is judged as the walk would have judged it).
 */
export function excludeTest(base: string, text: string): ExcludeTest | undefined {
  const patterns = parseExcludes(text)
    .map(parsePattern)
    .filter((p): p is Pattern => p !== undefined);
  if (!patterns.length) return undefined;
  const root = base.replace(/\\/g, '/').replace(/\/+$/, '');
  const matches = (relative: string, isDirectory: boolean) =>
    patterns.some((p) => (!p.directoryOnly || isDirectory) && p.regex.test(relative));
  return (path, isDirectory) => {
    const full = path.replace(/\\/g, '/');
    if (!full.startsWith(`${root}/`)) return false;
    const parts = full.slice(root.length + 1).split('/');
    for (let i = 1; i <= parts.length; i++) {
      const last = i === parts.length;
      if (matches(parts.slice(0, i).join('/'), last ? isDirectory : true)) return true;
    }
    return false;
  };
}
