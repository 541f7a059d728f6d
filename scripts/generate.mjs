#!/usr/bin/env node
// Regenerates every file of the repository that a program writes (`npm run generate`), and with --check
// fails when one differs from what is committed (CI runs that after the tests: .ci/run).
//
//   node scripts/generate.mjs [NAME…]            all generators, or the ones named
//   node scripts/generate.mjs --check [NAME…]    the same, then fails on any difference in their files
//   node scripts/generate.mjs --list             the generators and the files each one writes
//
// Edit the sources, never the generated files; then run this and commit both. `npm run build` runs only
// `validators`, the one whose files the TypeScript build reads. Test-driven generators are the tests that
// compare a committed file with what the code gives, run in their writing mode (an environment variable
// or vitest's --update): the test is the single definition of the file, so generating and checking
// cannot disagree.
//
// Not generated, on purpose:
// - vscode-extension/images/screenshot.png: a screenshot of a real VS Code (take-screenshot.mjs); it
//   changes with fonts, timing and code-server's version, so no run gives it back byte for byte.
// - runtime/test/fixtures/check-output/*: real test runners' output, captured once (their README).
// - the bundles, the extension's copy of the TextMate grammar (dist/syntaxes) and the JSON Schemas the
//   CLI ships: build outputs under dist/, never committed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** Test files (below the packages' test/ folders, test/ and docs/) whose text matches `pattern`. */
function testsMentioning(pattern) {
  const found = [];
  for (const top of readdirSync(root, { withFileTypes: true })) {
    if (!top.isDirectory() || top.name === 'node_modules' || top.name.startsWith('.')) continue;
    const folders = ['test', 'docs'].includes(top.name) ? [top.name] : [join(top.name, 'test')];
    for (const folder of folders) {
      if (!existsSync(join(root, folder))) continue;
      for (const name of readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })) {
        const path = join(folder, name);
        if (!name.endsWith('.test.ts') || path.split(/[\\/]/).includes('node_modules')) continue;
        if (pattern.test(readFileSync(join(root, path), 'utf8'))) found.push(path.split('\\').join('/'));
      }
    }
  }
  return found.sort();
}

/** The committed vitest snapshot files, as the test files that own them. */
function testsWithSnapshots() {
  const listed = spawnSync('git', ['ls-files', '--', ':(glob)**/__snapshots__/*.snap'], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((snap) =>
      join(
        dirname(dirname(snap)),
        snap
          .split('/')
          .pop()
          .replace(/\.snap$/, ''),
      ),
    )
    .filter((test) => existsSync(join(root, test)));
}

/**
 * Each generator: what it writes (git pathspecs, for --check), where that comes from, and how. `tests`
 * generators run the named test files with `env` set (`update`: vitest's --update, for snapshots).
 */
const GENERATORS = [
  {
    name: 'validators',
    writes: ['compiler/src/generated'],
    from: 'grammar/schema/playbook.schema.json, playbook-test.schema.json, policy.schema.json and compiler/schema/ir.schema.json (ajv standalone code)',
    run: () => node('compiler/scripts/generate-validators.mjs'),
  },
  {
    name: 'serve-schemas',
    writes: ['protocol/src/generated'],
    from: "protocol/src/serve-api.ts, the types of serve's API (ts-json-schema-generator)",
    run: () => node('protocol/scripts/generate-schemas.mjs'),
  },
  {
    // First of the test-driven ones: the fixture and property tests below read test/fixtures/ok.
    name: 'ok-fixtures',
    writes: [
      ':(glob)test/fixtures/ok/sample-*',
      ':(glob)test/fixtures/ok/docs-*',
      ':(glob)test/fixtures/ok/docs-*/**',
    ],
    from: 'playbooks/*.yml and the docs playbooks that check clean (test/ok-fixtures.test.ts)',
    tests: () => ['test/ok-fixtures.test.ts'],
    env: { UPDATE_FIXTURES: '1' },
  },
  {
    name: 'err-outputs',
    writes: [':(glob)test/fixtures/err/**/*.out'],
    from: 'the diagnostics of each test/fixtures/err playbook (test/fixtures.test.ts)',
    tests: () => ['test/fixtures.test.ts'],
    env: { UPDATE_FIXTURES: '1' },
  },
  {
    name: 'docs-outputs',
    writes: [':(glob)docs/**/*.md'],
    from: "the output blocks of the docs' examples, from running them (docs/docs.test.ts)",
    tests: () => testsMentioning(/process\.env\.UPDATE_DOCS/),
    env: { UPDATE_DOCS: '1' },
  },
  {
    name: 'samples',
    writes: ['docs/samples.md'],
    from: "each sample playbook's bounds and its tests' coverage (docs/samples.test.ts)",
    tests: () => ['docs/samples.test.ts'],
    env: { UPDATE_SAMPLES_DOC: '1' },
  },
  {
    name: 'protocol-schemas',
    writes: ['runtime/schema'],
    from: "the Kairoku runner protocol's schemas the runtime carries as data (its schema test)",
    tests: () => testsMentioning(/process\.env\.KAIROKU_WRITE_SCHEMAS/),
    env: { KAIROKU_WRITE_SCHEMAS: '1' },
  },
  {
    name: 'snapshots',
    writes: [':(glob)**/__snapshots__/**'],
    from: 'vitest snapshot files (vitest --update on the tests that own them)',
    tests: testsWithSnapshots,
    env: {},
    update: true,
  },
  {
    name: 'icon',
    writes: ['vscode-extension/images/icon.png'],
    from: 'vscode-extension/images/icon.svg, rendered by Chromium (render-icon.mjs)',
    run: icon,
    needs: 'Chromium',
  },
];

function node(script, args = [], env = {}) {
  const result = spawnSync(process.execPath, [join(root, script), ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  if (result.status !== 0) throw new Error(`${script} ${args.join(' ')} failed`);
}

function runTests(generator) {
  const tests = generator.tests();
  if (tests.length === 0) throw new Error(`${generator.name}: no test file found to run`);
  node(
    'node_modules/vitest/vitest.mjs',
    ['run', ...(generator.update ? ['--update=all'] : []), ...tests],
    generator.env,
  );
}

// ------------------------------------------------------------------------------------------------ icon

/**
 * A pixel counts as different when one of its channels differs by more than this (of 255), and the icon
 * as changed when more than ICON_CHANGED_SHARE of its pixels do. Chromium's versions differ slightly in
 * antialiasing and PNG encoding, so the committed PNG is replaced only when the SVG renders visibly
 * differently: a byte comparison would fail CI after every Chromium update of the build machine, with
 * nothing to fix in the repository.
 */
const ICON_CHANNEL_TOLERANCE = 16;
const ICON_CHANGED_SHARE = 0.002;

async function icon() {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium))
    throw new Skipped(
      `no Chromium at ${chromium} (install Debian's chromium package, or set CHROMIUM_PATH); icon.png was not checked`,
    );
  const { renderIcon } = await import('../vscode-extension/images/render-icon.mjs');
  const committed = join(root, 'vscode-extension/images/icon.png');
  const folder = mkdtempSync(join(tmpdir(), 'kairoku-playbook-icon-'));
  try {
    const fresh = await renderIcon(undefined, join(folder, 'icon.png'));
    if (existsSync(committed) && readFileSync(fresh).equals(readFileSync(committed))) return;
    const share = existsSync(committed) ? await differingShare(chromium, committed, fresh) : 1;
    if (share <= ICON_CHANGED_SHARE) {
      console.log(
        `icon: this Chromium renders icon.svg ${(share * 100).toFixed(2)}% of pixels apart from icon.png (antialiasing); kept`,
      );
      return;
    }
    copyFileSync(fresh, committed);
    console.log(
      `icon: icon.svg renders differently (${(share * 100).toFixed(1)}% of pixels); icon.png rewritten`,
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The share of pixels that differ between two PNGs (1 when their sizes differ), decoded by Chromium. */
async function differingShare(executablePath, a, b) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage();
    const url = (path) => `data:image/png;base64,${readFileSync(path).toString('base64')}`;
    return await page.evaluate(
      async ([first, second, tolerance]) => {
        const pixels = async (src) => {
          const image = new globalThis.Image();
          image.src = src;
          await image.decode();
          const canvas = globalThis.document.createElement('canvas');
          canvas.width = image.naturalWidth;
          canvas.height = image.naturalHeight;
          const context = canvas.getContext('2d');
          context.drawImage(image, 0, 0);
          return context.getImageData(0, 0, canvas.width, canvas.height);
        };
        const [x, y] = [await pixels(first), await pixels(second)];
        if (x.width !== y.width || x.height !== y.height) return 1;
        let differing = 0;
        for (let i = 0; i < x.data.length; i += 4) {
          for (let c = 0; c < 4; c++) {
            if (Math.abs(x.data[i + c] - y.data[i + c]) > tolerance) {
              differing++;
              break;
            }
          }
        }
        return differing / (x.width * x.height);
      },
      [url(a), url(b), ICON_CHANNEL_TOLERANCE],
    );
  } finally {
    await browser.close();
  }
}

/** A generator that cannot run on this machine; --check fails on it, a plain run goes on. */
class Skipped extends Error {}

// ------------------------------------------------------------------------------------------------ main

function changedFiles(pathspecs) {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all', '--', ...pathspecs], {
    cwd: root,
    encoding: 'utf8',
  });
  if (status.status !== 0) throw new Error(`git status failed: ${status.stderr}`);
  return status.stdout.split('\n').filter(Boolean);
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const names = args.filter((arg) => !arg.startsWith('--'));
const unknown = names.filter((name) => !GENERATORS.some((g) => g.name === name));
if (unknown.length > 0 || args.some((arg) => arg.startsWith('--') && arg !== '--check' && arg !== '--list')) {
  console.error(
    `usage: node scripts/generate.mjs [--check | --list] [${GENERATORS.map((g) => g.name).join(' | ')} …]`,
  );
  process.exit(2);
}
const selected = GENERATORS.filter((g) => names.length === 0 || names.includes(g.name));

if (args.includes('--list')) {
  for (const g of selected) {
    console.log(`${g.name}: ${g.from}${g.needs ? ` (needs ${g.needs})` : ''}`);
    console.log(`  writes ${g.writes.join(' ')}`);
    if (g.tests) console.log(`  by running ${g.tests().join(' ') || '(no test found)'}`);
  }
  process.exit(0);
}

const skipped = [];
for (const generator of selected) {
  console.log(`generate: ${generator.name}`);
  try {
    if (generator.run) await generator.run();
    else runTests(generator);
  } catch (error) {
    if (!(error instanceof Skipped)) throw error;
    console.log(`generate: ${generator.name} skipped: ${error.message}`);
    skipped.push(generator.name);
  }
}

if (check) {
  const changed = changedFiles(selected.flatMap((g) => g.writes));
  if (changed.length > 0) {
    console.error(
      `generated files differ from the commit (edited by hand, or not regenerated after their source changed):\n${changed.join('\n')}\n` +
        'Run `npm run generate`, read the difference, and commit it.',
    );
    spawnSync('git', ['--no-pager', 'diff', '--stat'], { cwd: root, stdio: 'inherit' });
    process.exit(1);
  }
  if (skipped.length > 0) {
    console.error(`not checked, the generator could not run here: ${skipped.join(', ')}`);
    process.exit(1);
  }
  console.log(`generated files match the commit (${selected.map((g) => g.name).join(', ')})`);
}
