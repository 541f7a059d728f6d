import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  SourceText,
  analyzeFile,
  analyzeTestFile,
  compileAnalysis,
  playbookFilesOf,
} from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { forTerminal, runPlaybookTest } from '@kairoku-playbook/runtime';
import { flag, oneOf, parseArgs } from '../args.js';
import { discoverFiles, displayPath } from '../discover.js';
import { formatText } from '../format/index.js';
import { UsageError, readPlaybookFile } from '../io.js';
import type { CommandIo } from '../io.js';
import { CoverageCollector, DEFAULT_LCOV, finishCoverage, parseMinCoverage } from './test-coverage.js';

export const TEST_HELP = `Usage: kairoku-playbook test [PATH...]

Runs playbook tests: every *.test.yml|yaml below the given folders (default: the current folder;
node_modules and .git are skipped), or the test files given. A test sits beside its playbook
(pr.test.yml tests pr.yml; more tests of it by name: pr.reject.test.yml) and is a scenario for the
sim backend plus an expect: block (see
docs/reference.md, "Scenarios and playbook tests"):

  inputs: { task: add a flag }
  steps:  { qa: [{ outcome: fail }, { outcome: pass }] }
  gates:  { ship: [{ choice: approve }] }
  expect:
    status: completed
    steps: { qa: { attempts: [fail, pass] }, implement: { attempts: 2 } }
    loops: { qa.fail: 1 }
    outputs: { branch: sim/implement-c71e23 }

Options:
  --coverage              record what the tests cover, per playbook over all of its tests: each
                          step reached, each outcome and gate choice taken, each loop taken and
                          exhausted, each after-task started, each when true and false; print a
                          table, write lcov and NAME.coverage.json beside each playbook (which the
                          editor reads to fade the outcomes no test takes)
  --coverage-lcov FILE    where the lcov goes (default ${DEFAULT_LCOV}; implies --coverage)
  --min-coverage N        exit 1 when under N percent of the branches are taken (implies --coverage)
  --format text|json      json: the tests' results (and the coverage) as one JSON document
  -h, --help              this help

Exit codes: 0 every test passed, 1 a test failed (or there were none, or the coverage is below
--min-coverage), 2 usage or I/O errors.`;

const TEST_FILE = /\.test\.ya?ml$/i;

export function runTest(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(
    argv,
    {
      help: 'boolean',
      coverage: 'boolean',
      'coverage-lcov': 'string',
      'min-coverage': 'string',
      format: 'string',
    },
    { h: 'help' },
  );
  if (args.flags.has('help')) {
    io.stdout(`${TEST_HELP}\n`);
    return 0;
  }
  const json = oneOf(flag(args, 'format'), ['text', 'json'] as const, 'format', 'text') === 'json';
  const min = parseMinCoverage(flag(args, 'min-coverage'));
  const lcov = flag(args, 'coverage-lcov');
  const coverage =
    args.flags.has('coverage') || min !== undefined || lcov !== undefined
      ? new CoverageCollector()
      : undefined;
  const files = collectTests(args.positionals.length ? args.positionals : ['.'], io.cwd);
  if (!files.length) {
    if (json) io.stdout(`${JSON.stringify({ tests: [], passed: 0, failed: 0 })}\n`);
    else io.stdout('no playbook tests found (*.test.yml beside the playbooks)\n');
    return 1;
  }
  const results = files.map((file) => {
    const shown = displayPath(file, io.cwd);
    return { file: shown, ...runOne(file, shown, io, coverage) };
  });
  const failed = results.filter((r) => r.problems.length > 0).length;
  if (!json) printResults(results, io);
  const covered = coverage
    ? finishCoverage(coverage, { lcov: lcov ?? DEFAULT_LCOV, min, json }, io)
    : undefined;
  if (json) {
    const tests = results.map((r) => ({ ...r, passed: r.problems.length === 0 }));
    const document = { tests, passed: results.length - failed, failed };
    const withCoverage = covered
      ? { ...document, coverage: { lcov: covered.lcov, playbooks: covered.reports } }
      : document;
    io.stdout(`${JSON.stringify(withCoverage, null, 2)}\n`);
  }
  return failed || (covered && !covered.met) ? 1 : 0;
}

/** Each test's line (✓ or ✗ with its problems), then the count. */
function printResults(
  results: readonly { file: string; name?: string; problems: string[] }[],
  io: CommandIo,
): void {
  const green = (t: string) => (io.color ? `\u001b[32m${t}\u001b[39m` : t);
  const red = (t: string) => (io.color ? `\u001b[31m${t}\u001b[39m` : t);
  for (const outcome of results) {
    // Names, differences and refusals quote the test files and the run's texts: no control sequences.
    const title = forTerminal(outcome.name ? `${outcome.name} (${outcome.file})` : outcome.file, {
      oneLine: true,
    });
    if (outcome.problems.length === 0) io.stdout(`${green('✓')} ${title}\n`);
    else
      io.stdout(`${red('✗')} ${title}\n${outcome.problems.map((p) => `    ${forTerminal(p)}\n`).join('')}`);
  }
  const failed = results.filter((r) => r.problems.length > 0).length;
  const line = `${results.length - failed} passed, ${failed} failed`;
  io.stdout(`\n${failed ? red(line) : green(line)}\n`);
}

function runOne(
  file: string,
  shown: string,
  io: CommandIo,
  coverage: CoverageCollector | undefined,
): { name?: string; problems: string[] } {
  const read = readPlaybookFile(file, shown, 'a playbook test');
  if ('diagnostic' in read) return { problems: [read.diagnostic.message] };
  const candidates = playbookFilesOf(file);
  const playbook = candidates.find((path) => existsSync(path));
  if (!playbook) {
    const expected = candidates
      .filter((path) => path.endsWith('.yml'))
      .map((path) => displayPath(path, io.cwd));
    return { problems: [`no playbook beside it: expected ${expected.join(' or ')}`] };
  }
  const playbookShown = displayPath(playbook, io.cwd);
  const source = readPlaybookFile(playbook, playbookShown);
  if ('diagnostic' in source) return { problems: [source.diagnostic.message] };
  const analysis = analyzeFile(playbookShown, source.text);
  const compiled = compileAnalysis(analysis);
  if (!compiled.ir)
    return { problems: [`${playbookShown} has errors:`, ...errorLines(compiled.diagnostics, source.text)] };
  // What check says of the test file (its YAML, its shape, its names), said the same way: one engine.
  const test = analyzeTestFile(shown, read.text, analysis);
  const testErrors = errorLines(test.diagnostics, read.text);
  if (testErrors.length) return { problems: [`${shown} has errors:`, ...testErrors] };
  const hits = coverage?.hitsFor(playbook, compiled.ir);
  const result = runPlaybookTest(compiled.ir, test.value, hits ? { coverage: hits } : {});
  const problems = [...result.errors, ...result.differences];
  return result.name !== undefined ? { name: result.name, problems } : { problems };
}

function collectTests(paths: readonly string[], cwd: string): string[] {
  const found: string[] = [];
  for (const arg of paths) {
    const path = resolve(cwd, arg);
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch {
      throw new UsageError(`no such file or folder: ${arg}`);
    }
    if (isFolder) {
      // The walk `check` takes (each folder once, bounded), collecting tests instead of playbooks.
      const walk = discoverFiles(path, {
        accept: (file) => TEST_FILE.test(file),
        what: 'playbook tests',
        shownRoot: arg === '.' ? 'the current folder' : arg,
      });
      if (walk.limit) throw new UsageError(walk.limit);
      found.push(...walk.files);
    } else if (TEST_FILE.test(path)) found.push(path);
    else throw new UsageError(`${arg} is not a playbook test (*.test.yml or *.test.yaml)`);
  }
  return [...new Set(found)];
}

/** The errors among `diagnostics` as check prints them, one line each, indented under their heading. */
function errorLines(diagnostics: readonly Diagnostic[], text: string): string[] {
  const printed = formatText([...diagnostics], () => new SourceText(text), { color: false, fileCount: 1 });
  return printed
    .split('\n')
    .filter((line) => /: error PB\d+ /.test(line))
    .map((line) => `  ${line}`);
}
