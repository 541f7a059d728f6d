/**
 * The repository stands alone: a user's clone has nothing beside it, so no tracked file may point at a
 * document outside it (the contract, the Paseo protocol notes, the source documents), and every kind of
 * id the sources cite instead (`SPEC §N`, `RF-NNN`, `seed NNN`) is explained in the docs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('..', import.meta.url));

/** Tracked files with their text; binary files (a NUL byte) are left out. */
function trackedTexts(): { path: string; text: string }[] {
  const paths = execFileSync('git', ['ls-files', '-z'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  const texts: { path: string; text: string }[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(join(repo, path), 'utf8');
    } catch {
      continue; // deleted in the work tree, not yet committed
    }
    if (!text.includes('\0')) texts.push({ path, text });
  }
  return texts;
}

/** What points outside the repository. */
const OUTSIDE: { what: string; pattern: RegExp }[] = [
  { what: 'a path into the folder beside the repository', pattern: /\.\.\/shared\// },
  { what: 'the absolute path of that folder', pattern: /\/work\/shared\b/ },
  { what: "the contract's file name", pattern: /\bSPEC\.md\b/ },
  { what: "the Paseo notes' file name", pattern: /\bPASEO-PROTOCOL\.md\b/ },
  { what: 'a source document', pattern: /\bseeds\/|\b\d{3}_[0-9a-f]{16}\.txt\b/ },
];

/**
 * Test data that only looks like such a path: the SARIF test's made-up relative paths of playbooks
 * outside the SARIF root.
 */
const DATA: Record<string, RegExp> = {
  'cli/test/format/sarif.test.ts': /'\.\.\/shared\/a\.yml'/g,
};

const THIS_FILE = 'test/standalone.test.ts';

describe('the repository stands alone', () => {
  const files = trackedTexts();

  it('has tracked files to look at', () => {
    expect(files.map((f) => f.path)).toEqual(expect.arrayContaining(['README.md', 'docs/reference.md']));
  });

  it('names no document outside it, in any tracked file', () => {
    const found: string[] = [];
    for (const { path, text } of files) {
      if (path === THIS_FILE) continue; // its samples below name them on purpose
      const data = DATA[path];
      const lines = (data ? text.replace(data, "'data'") : text).split('\n');
      lines.forEach((line, index) => {
        for (const { what, pattern } of OUTSIDE)
          if (pattern.test(line)) found.push(`${path}:${index + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('still finds what it looks for (a check that finds nothing proves nothing)', () => {
    const samples = [
      `see ${['..', 'shared', 'x.md'].join('/')}`, // joined, so that git grep for it finds data only
      'the /work/shared folder',
      'SPEC.md §3',
      'PASEO-PROTOCOL.md',
      'seeds/000',
      '001_d86224360cfd9456.txt',
    ];
    for (const sample of samples)
      expect(
        OUTSIDE.some((o) => o.pattern.test(sample)),
        sample,
      ).toBe(true);
    expect(OUTSIDE.some((o) => o.pattern.test('a SPEC §3.3 reference, a seed 000 design'))).toBe(false);
  });

  const cited = (pattern: RegExp) => {
    const ids = new Map<string, string>();
    for (const { path, text } of files) {
      if (path === THIS_FILE) continue;
      for (const match of text.matchAll(pattern)) if (!ids.has(match[1]!)) ids.set(match[1]!, path);
    }
    return ids;
  };

  /** The text of a doc's section: from its heading to the next heading of the same level or above. */
  const section = (doc: string, heading: string) => {
    const text = readFileSync(join(repo, doc), 'utf8');
    const start = text.indexOf(`\n${heading}\n`);
    expect(start, `${doc} has the section "${heading}"`).toBeGreaterThan(-1);
    const level = /^#+/.exec(heading)![0];
    const rest = text.slice(start + heading.length + 2);
    const end = rest.search(new RegExp(`^#{1,${level.length}} `, 'm'));
    return end === -1 ? rest : rest.slice(0, end);
  };

  it("explains every contract section the sources cite (SPEC §N) in the reference's table", () => {
    const table = section('docs/reference.md', "## Where the contract's sections are");
    const rows = new Set([...table.matchAll(/^\| §(\d+(?:\.\d+)?) /gm)].map((m) => m[1]!));
    const ids = cited(/§(\d+(?:\.\d+)?)/g);
    expect(ids.size).toBeGreaterThan(5);
    const missing = [...ids].filter(([id]) => !rows.has(id)).map(([id, path]) => `§${id} (${path})`);
    expect(missing, "cited as SPEC §N but not in docs/reference.md's table").toEqual([]);
  });

  it('explains every runner requirement the sources cite (RF-NNN) in kairoku-protocol.md', () => {
    const table = section('docs/kairoku-protocol.md', "## The runner's requirements (RF ids)");
    const rows = new Set([...table.matchAll(/^\| (RF-\d{3}) /gm)].map((m) => m[1]!));
    const ids = cited(/\b(RF-\d{3})\b/g);
    expect(ids.size).toBeGreaterThan(5);
    const missing = [...ids].filter(([id]) => !rows.has(id)).map(([id, path]) => `${id} (${path})`);
    expect(missing, 'cited but not in the table').toEqual([]);
  });

  it('says what each source document the sources cite (seed NNN) is', () => {
    const sources = section('docs/reference.md', '### Where the design came from');
    const ids = cited(/\bseed (\d{3})\b/gi);
    expect(ids.size).toBeGreaterThan(0);
    const missing = [...ids]
      .filter(([id]) => !sources.includes(`**seed ${id}**`))
      .map(([id, p]) => `${id} (${p})`);
    expect(missing, 'cited but not explained').toEqual([]);
  });
});
