/**
 * Every sample playbook (playbooks/*.yml) and every playbook of the docs that checks clean is also a
 * test/fixtures/ok fixture, so that all that reads the fixtures (test/fixtures.test.ts, the language
 * server's parity and robustness tests, the property tests) covers them too. Those fixtures are generated,
 * never edited: `UPDATE_FIXTURES=1 npx vitest run test/ok-fixtures.test.ts` (a step of `npm run generate`)
 * writes them, and this test fails when one is missing, differs or is left over.
 *
 * - `sample-NAME.yml`: playbooks/NAME.yml.
 * - `docs-DOC-NAME.yml`: a one-file example of docs/DOC.md, NAME its `file=` name (`-2`, `-3`, … for the
 *   second and third of that name in the doc); a folder of that name for an example of several files.
 *
 * A docs example counts when all its playbooks check clean together; its scenario and test files
 * (`*.test.yml`, `*.scenario.yml`) are left out, not being playbooks. Hand-written ok/ fixtures must not use
 * the two prefixes.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isPlaybookTest, validateWorkspace } from '@kairoku-playbook/compiler';
import { examplesOf, markdownFiles } from '../docs/examples.js';
import { FIXTURES } from './support/fixtures.js';

const update = process.env.UPDATE_FIXTURES === '1';
const REPOSITORY = new URL('../', import.meta.url).pathname;
const OK = join(FIXTURES, 'ok');
const GENERATED = /^(sample|docs)-/;

/** A generated fixture: one file, or a folder of files (one workspace). */
interface Generated {
  name: string;
  files: { name: string; text: string }[];
  /** where it comes from, for messages */
  source: string;
}

function header(source: string): string {
  return `# Generated from ${source} by \`npm run generate\` (test/ok-fixtures.test.ts): edit it there.\n`;
}

function samples(): Generated[] {
  const folder = join(REPOSITORY, 'playbooks');
  return readdirSync(folder)
    .filter((name) => /\.ya?ml$/.test(name) && !isPlaybookTest(name))
    .sort()
    .map((name) => {
      const source = `playbooks/${name}`;
      const text = header(source) + readFileSync(join(folder, name), 'utf8');
      return { name: `sample-${name}`, files: [{ name: `sample-${name}`, text }], source };
    });
}

const isScenario = (name: string) => isPlaybookTest(name) || /\.scenario\.ya?ml$/i.test(name);

/** Whether the files check clean as fixture `name` (validated where test/fixtures.test.ts will). */
function checksClean(fixture: Generated): boolean {
  const single = fixture.files.length === 1 && fixture.files[0]!.name === fixture.name;
  const files = fixture.files.map((f) => ({
    file: `test/fixtures/ok/${single ? f.name : `${fixture.name}/${f.name}`}`,
    text: f.text,
  }));
  return validateWorkspace(files).diagnostics.length === 0;
}

/** A file's folders become part of its name: a workspace fixture is one flat folder. */
const flat = (name: string) =>
  name
    .split('/')
    .map((part) => part.replace(/^\.+/, ''))
    .join('-');

/** The fixture of a docs example's playbooks, named after the first; `taken` counts the names kept so far. */
function fixtureOf(
  stem: string,
  playbooks: { name: string; text: string }[],
  taken: Map<string, number>,
  doc: string,
  source: string,
): Generated {
  const first = flat(playbooks[0]!.name).replace(/\.ya?ml$/, '');
  const count = (taken.get(first) ?? 0) + 1;
  // A folder's name has no dot (test/support/fixtures.ts tells folders from files by it).
  const name = `docs-${stem}-${first}${count > 1 ? `-${count}` : ''}`.replace(
    /\./g,
    playbooks.length > 1 ? '-' : '.',
  );
  const files = playbooks.map((f) => ({ name: flat(f.name), text: header(doc) + f.text }));
  return files.length === 1
    ? { name: `${name}.yml`, files: [{ name: `${name}.yml`, text: files[0]!.text }], source }
    : { name, files, source };
}

function docsExamples(): Generated[] {
  const generated: Generated[] = [];
  const seen = new Set<string>();
  for (const path of markdownFiles(join(REPOSITORY, 'docs'))) {
    const doc = relative(REPOSITORY, path);
    const stem = basename(path).replace(/\.md$/, '');
    const taken = new Map<string, number>();
    const keep = (playbooks: { name: string; text: string }[], source: string): boolean => {
      const fixture = fixtureOf(stem, playbooks, taken, doc, source);
      if (!checksClean(fixture)) return false;
      const first = flat(playbooks[0]!.name).replace(/\.ya?ml$/, '');
      taken.set(first, (taken.get(first) ?? 0) + 1);
      generated.push(fixture);
      return true;
    };
    for (const example of examplesOf(doc, readFileSync(path, 'utf8')).examples) {
      const playbooks = example.files.filter((f) => !isScenario(f.name));
      // One playbook shown with several commands is one example.
      const key = JSON.stringify(playbooks);
      if (playbooks.length === 0 || seen.has(key)) continue;
      seen.add(key);
      const source = `${doc}, line ${example.line}`;
      // Several files that do not check clean together (a discovery example, say): those that do alone.
      if (!keep(playbooks, source) && playbooks.length > 1)
        for (const file of playbooks) keep([file], `${source} (${file.name})`);
    }
  }
  return generated;
}

/**
 * Makes test/fixtures/ok hold `want` under the generated names, touching only what differs (other tests
 * read the folder, perhaps at the same time).
 */
function write(want: Map<string, string>, have: Map<string, string>): void {
  for (const [name, text] of want) {
    if (have.get(name) === text) continue;
    mkdirSync(dirname(join(OK, name)), { recursive: true });
    writeFileSync(join(OK, name), text);
  }
  for (const name of have.keys()) if (!want.has(name)) rmSync(join(OK, name), { force: true });
  for (const name of readdirSync(OK).filter((n) => GENERATED.test(n))) {
    const path = join(OK, name);
    if (statSync(path).isDirectory() && readdirSync(path).length === 0) rmSync(path, { recursive: true });
  }
}

/** What test/fixtures/ok holds under a generated name: file name → text (folders as `folder/file`). */
function present(): Map<string, string> {
  const found = new Map<string, string>();
  for (const name of readdirSync(OK).filter((n) => GENERATED.test(n))) {
    const path = join(OK, name);
    if (statSync(path).isDirectory())
      for (const file of readdirSync(path))
        found.set(`${name}/${file}`, readFileSync(join(path, file), 'utf8'));
    else found.set(name, readFileSync(path, 'utf8'));
  }
  return found;
}

function expected(fixtures: Generated[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const fixture of fixtures) {
    const single = fixture.files.length === 1 && fixture.files[0]!.name === fixture.name;
    for (const file of fixture.files)
      files.set(single ? file.name : `${fixture.name}/${file.name}`, file.text);
  }
  return files;
}

describe('test/fixtures/ok holds every sample and every clean docs playbook', () => {
  const docs = docsExamples();
  const fixtures = [...samples(), ...docs];

  it('every sample playbook checks clean', () => {
    for (const sample of samples()) expect(checksClean(sample), sample.source).toBe(true);
  });

  it('the generated fixtures are there, unchanged, and nothing else under their names', () => {
    const want = expected(fixtures);
    if (update) write(want, present());
    const have = present();
    const missing = [...want.keys()].filter((name) => !have.has(name));
    const leftOver = [...have.keys()].filter((name) => !want.has(name));
    const changed = [...want.keys()].filter((name) => have.has(name) && have.get(name) !== want.get(name));
    const regenerate =
      'run `npm run generate` (or UPDATE_FIXTURES=1 npx vitest run test/ok-fixtures.test.ts)';
    expect({ missing, leftOver, changed }, regenerate).toEqual({ missing: [], leftOver: [], changed: [] });
  });

  it('takes most of the docs playbooks (a docs example that stops checking clean drops out)', () => {
    // Not a count to keep: a floor that notices when the reading of the docs breaks and finds nothing.
    expect(docs.length).toBeGreaterThan(20);
    expect(existsSync(OK)).toBe(true);
  });
});
