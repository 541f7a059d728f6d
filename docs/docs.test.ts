/**
 * The docs' examples are tests, so the docs cannot drift from the tool.
 *
 * In every `docs/**.md` file:
 *
 * - A fenced block whose info string is `yaml file=NAME.yml` holds a playbook. Written alone to a fresh
 *   temporary folder, it is checked with `kairoku-playbook check NAME.yml` (the CLI's `main`, in-process,
 *   text format, no colour).
 * - The fenced block right after it (only blank lines between) with the info string `text output` holds
 *   the exact standard output of that command, summary line included. Without such a block, the
 *   playbook must check clean (`no problems in 1 file`). Several output blocks in a row each show a
 *   command run on the same files.
 * - Several `yaml file=…` blocks in a row (only blank lines between) are one workspace: they are written
 *   to the same folder and checked together (`check A.yml B.yml …`), and the output block after the last
 *   one holds the output for all of them.
 * - An output block may say which command it shows: `text output args="graph NAME.yml"` or
 *   `json output args="check --format json NAME.yml"`. With `args`, it may also stand alone (the command
 *   then runs in an empty folder). With `stream=stderr` it holds standard error, and standard output
 *   must be empty; otherwise standard error must be empty. The exit code must be 1 when the output holds
 *   an error and 0 otherwise, unless the block says `exit=N`.
 * - An output block that shows what changes from one run to the next (a run's id) says which word of the
 *   block stands for it: `varies="pr-XXXXXX"` matches any text without spaces or quotes there.
 * - Commands that save runs (`run`) save them in the temporary folder (`KAIROKU_PLAYBOOK_HOME`).
 * - Any other YAML block must be marked `yaml fragment`: it is only parsed (it must be valid YAML).
 *
 * `UPDATE_DOCS=1 npx vitest run docs` rewrites every output block from the actual output. Read the diff
 * afterwards: every message and every caret must be right, or the tool has a bug to report.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CODES } from '@kairoku-playbook/compiler';
import { main } from '../cli/src/main.js';
import { examplesOf, markdownFiles } from './examples.js';
import type { Example, Fence } from './examples.js';
import { tempDir } from '../test/kit/temp.js';

const DOCS = dirname(fileURLToPath(import.meta.url));
const UPDATE = process.env.UPDATE_DOCS === '1';

// ------------------------------------------------------------------------------------ running examples

/** Runs the CLI in a fresh folder holding only the example's files; runs are saved below it. */
export function runExample(example: Example): { stdout: string; stderr: string; exitCode: number } {
  const folder = tempDir('kairoku-playbook-docs-');
  const home = process.env.KAIROKU_PLAYBOOK_HOME;
  process.env.KAIROKU_PLAYBOOK_HOME = join(folder, '.kairoku-playbook-home');
  try {
    for (const file of example.files) {
      const path = join(folder, file.name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.text);
    }
    let stdout = '';
    let stderr = '';
    const exitCode = main(example.args, {
      cwd: folder,
      stdout: (text) => (stdout += text),
      stderr: (text) => (stderr += text),
      color: false,
      colorStderr: false,
    });
    if (typeof exitCode !== 'number') throw new Error(`${example.args.join(' ')} did not answer at once`);
    return { stdout, stderr, exitCode };
  } finally {
    if (home === undefined) delete process.env.KAIROKU_PLAYBOOK_HOME;
    else process.env.KAIROKU_PLAYBOOK_HOME = home;
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Whether the actual output is what the block shows, where each `varies` word of the block stands for
 * any text without spaces or quotes.
 */
export function outputMatches(block: Fence, actual: string): boolean {
  const expected = `${block.content}\n`;
  const varies = block.attributes.get('varies');
  if (!varies) return actual === expected;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = expected.split(varies).map(escape).join('[^\\s"]+');
  return new RegExp(`^${pattern}$`).test(actual);
}

/** Whether the output (text, JSON or GitHub annotations) reports an error. */
function hasError(output: string): boolean {
  return (
    /^\S.*:\d+:\d+: error PB\d{3} /m.test(output) ||
    /"severity": "error"/.test(output) ||
    /^::error /m.test(output)
  );
}

// ------------------------------------------------------------------------------------ the tests

// (the root README too: its playbook and what check says of it run like every other example)
const docs = [...markdownFiles(DOCS), join(DOCS, '..', 'README.md')];

describe('docs', () => {
  it('has the reference, the diagnostics and the CLI', () => {
    const names = docs.map((path) => relative(DOCS, path));
    expect(names).toEqual(expect.arrayContaining(['reference.md', 'diagnostics.md', 'cli.md']));
  });
});

for (const path of docs) {
  const doc = relative(DOCS, path);
  const markdown = readFileSync(path, 'utf8');
  const { examples, problems, fragments } = examplesOf(doc, markdown);
  /** output block → the actual output, for UPDATE_DOCS */
  const updates = new Map<Fence, string>();

  describe(doc, () => {
    it('has no YAML outside runnable examples and fragments', () => {
      expect(problems).toEqual([]);
    });

    for (const fragment of fragments) {
      it(`fragment at line ${fragment.open + 1} is valid YAML`, () => {
        expect(() => parse(fragment.content, { strict: true, uniqueKeys: true })).not.toThrow();
      });
    }

    for (const example of examples) {
      const names = example.files.map((f) => f.name).join(', ');
      it(`line ${example.line}: ${example.args.join(' ')} (${names})`, () => {
        const { stdout, stderr, exitCode } = runExample(example);
        const shown = example.stream === 'stderr' ? stderr : stdout;
        const other = example.stream === 'stderr' ? stdout : stderr;
        expect(other, `nothing on standard ${example.stream === 'stderr' ? 'output' : 'error'}`).toBe('');
        if (example.output) {
          const matches = outputMatches(example.output, shown);
          if (UPDATE) {
            if (!matches) updates.set(example.output, shown);
          } else if (!matches) expect(shown).toBe(`${example.output.content}\n`);
        } else {
          expect(stdout, 'a playbook without an output block must check clean').toBe(
            `no problems in ${example.files.length} file${example.files.length === 1 ? '' : 's'}\n`,
          );
        }
        expect(exitCode).toBe(example.exit ?? (hasError(shown) ? 1 : 0));
      });
    }

    afterAll(() => {
      if (!UPDATE || updates.size === 0) return;
      const lines = markdown.split('\n');
      const sorted = [...updates].sort(([a], [b]) => b.open - a.open);
      for (const [block, stdout] of sorted) {
        lines.splice(block.open + 1, block.close - block.open - 1, ...stdout.replace(/\n$/, '').split('\n'));
      }
      const updated = lines.join('\n');
      if (updated !== markdown) writeFileSync(path, updated);
    });
  });
}

// ------------------------------------------------------------------------------------ diagnostics.md

/** Codes that only `check --explore` reports (the machine's explorer): documented without an example. */
const EXPLORE_ONLY = new Set(['PB310', 'PB311', 'PB312']);

describe('diagnostics.md covers every code', () => {
  const path = join(DOCS, 'diagnostics.md');
  const markdown = readFileSync(path, 'utf8');
  const lines = markdown.split('\n');
  const headings = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => /^## PB\d{3}\b/.test(line));
  const sections = headings.map(({ line, index }, k) => {
    const end = headings[k + 1]?.index ?? lines.length;
    return { code: line.slice(3, 8), heading: line, index, text: lines.slice(index, end).join('\n') };
  });
  const codes = Object.keys(CODES) as (keyof typeof CODES)[];

  it('has one section per code, in the order of the code table, titled as in the table', () => {
    expect(sections.map((s) => s.heading)).toEqual(codes.map((code) => `## ${code} ${CODES[code].title}`));
  });

  for (const section of sections) {
    const code = section.code;
    it(`${code} has its anchor`, () => {
      const before = lines.slice(0, section.index).reverse();
      const anchor = before.find((line) => line.trim() !== '');
      expect(anchor).toBe(`<a id="${code.toLowerCase()}"></a>`);
    });

    if (EXPLORE_ONLY.has(code)) {
      it(`${code} is documented as reported by check --explore, without an example`, () => {
        expect(section.text).toContain('check --explore');
        expect(examplesOf(`diagnostics.md ${code}`, section.text).examples).toEqual([]);
      });
      continue;
    }

    it(`${code} has a runnable example that reports it`, () => {
      const { examples } = examplesOf(`diagnostics.md ${code}`, section.text);
      const failing = examples.filter((e) => e.output !== undefined);
      expect(failing.length, `${code} needs a failing example with its output`).toBeGreaterThan(0);
      const reported = failing.some((e) =>
        new RegExp(`^\\S.*:\\d+:\\d+: (error|warning|info) ${code} `, 'm').test(
          UPDATE ? runExample(e).stdout : `${e.output!.content}\n`,
        ),
      );
      expect(reported, `an example of ${code} must report ${code}`).toBe(true);
    });
  }
});

// ------------------------------------------------------------------------------------ links

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^ {0,3}(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(slug(heading[1]!));
    for (const match of line.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(match[1]!);
  }
  return anchors;
}

describe('links between the docs resolve', () => {
  for (const path of docs) {
    const doc = relative(DOCS, path);
    it(doc, () => {
      const markdown = readFileSync(path, 'utf8');
      const broken: string[] = [];
      for (const match of markdown.matchAll(/\]\(([^)\s]*)\)/g)) {
        const target = match[1]!;
        if (/^[a-z]+:/.test(target)) continue; // an absolute URL
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const targetPath = file ? join(dirname(path), file) : path;
        if (
          file.endsWith('/') &&
          anchor === undefined &&
          existsSync(targetPath) &&
          statSync(targetPath).isDirectory()
        )
          continue; // a link to a folder
        let text: string;
        try {
          text = readFileSync(targetPath, 'utf8');
        } catch {
          broken.push(target);
          continue;
        }
        if (anchor !== undefined && targetPath.endsWith('.md') && !anchorsOf(text).has(anchor))
          broken.push(target);
      }
      expect(broken).toEqual([]);
    });
  }
});
