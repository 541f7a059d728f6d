import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { SourceText, compilePlaybook } from '@kairoku-playbook/compiler';
import { forTerminal, parseYaml, runPlaybookTest } from '@kairoku-playbook/runtime';
import { parseArgs } from '../args.js';
import { discoverFiles, displayPath } from '../discover.js';
import { formatText } from '../format/index.js';
import { UsageError, readPlaybookFile } from '../io.js';
import type { CommandIo } from '../io.js';

export const TEST_HELP = `Usage: kairoku-playbook test [PATH...]

Runs playbook tests: every *.test.yml|yaml below the given folders (default: the current folder;
node_modules and .git are skipped), or the test files given. A test sits beside its playbook
(pr.test.yml tests pr.yml) and is a scenario for the sim backend plus an expect: block (see
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
  -h, --help   this help

Exit codes: 0 every test passed, 1 a test failed (or there were none), 2 usage or I/O errors.`;

const TEST_FILE = /\.test\.ya?ml$/i;

export function runTest(argv: readonly string[], io: CommandIo): number {
  const args = parseArgs(argv, { help: 'boolean' }, { h: 'help' });
  if (args.flags.has('help')) {
    io.stdout(`${TEST_HELP}\n`);
    return 0;
  }
  const files = collectTests(args.positionals.length ? args.positionals : ['.'], io.cwd);
  if (!files.length) {
    io.stdout('no playbook tests found (*.test.yml beside the playbooks)\n');
    return 1;
  }
  const green = (t: string) => (io.color ? `\u001b[32m${t}\u001b[39m` : t);
  const red = (t: string) => (io.color ? `\u001b[31m${t}\u001b[39m` : t);
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const shown = displayPath(file, io.cwd);
    const outcome = runOne(file, shown, io);
    // Names, differences and refusals quote the test files and the run's texts: no control sequences.
    const title = forTerminal(outcome.name ? `${outcome.name} (${shown})` : shown, { oneLine: true });
    if (outcome.problems.length === 0) {
      passed++;
      io.stdout(`${green('✓')} ${title}\n`);
    } else {
      failed++;
      io.stdout(`${red('✗')} ${title}\n${outcome.problems.map((p) => `    ${forTerminal(p)}\n`).join('')}`);
    }
  }
  const line = `${passed} passed, ${failed} failed`;
  io.stdout(`\n${failed ? red(line) : green(line)}\n`);
  return failed ? 1 : 0;
}

function runOne(file: string, shown: string, io: CommandIo): { name?: string; problems: string[] } {
  const read = readPlaybookFile(file, shown, 'a playbook test');
  if ('diagnostic' in read) return { problems: [read.diagnostic.message] };
  const parsed = parseYaml(read.text);
  if ('error' in parsed) return { problems: [`${shown}: ${parsed.error}`] };
  const playbook = playbookOf(file);
  if (!playbook)
    return {
      problems: [`no playbook beside it: expected ${displayPath(file.replace(TEST_FILE, '.yml'), io.cwd)}`],
    };
  const playbookShown = displayPath(playbook, io.cwd);
  const source = readPlaybookFile(playbook, playbookShown);
  if ('diagnostic' in source) return { problems: [source.diagnostic.message] };
  const compiled = compilePlaybook(playbookShown, source.text);
  if (!compiled.ir) {
    const text = formatText(compiled.diagnostics, () => new SourceText(source.text), {
      color: false,
      fileCount: 1,
    });
    const lines = text.split('\n').filter((l) => /: error PB\d+ /.test(l));
    return { problems: [`${playbookShown} has errors:`, ...lines.map((l) => `  ${l}`)] };
  }
  const result = runPlaybookTest(compiled.ir, parsed.value);
  const problems = [...result.errors, ...result.differences];
  return result.name !== undefined ? { name: result.name, problems } : { problems };
}

/** `pr.test.yml` → `pr.yml` (or `pr.yaml`) in the same folder. */
function playbookOf(testFile: string): string | undefined {
  const match = TEST_FILE.exec(testFile);
  if (!match) return undefined;
  const stem = testFile.slice(0, match.index);
  return [`${stem}.yml`, `${stem}.yaml`].find((p) => existsSync(p));
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
