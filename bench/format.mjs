#!/usr/bin/env node
// How long formatting takes (issue 13), as ratios against `yaml.parseDocument` of the same file,
// measured in the same run: playbooks/pr.yml and a generated 2,000-step playbook (bench/out/big-2000.yml).
//
//   node bench/format.mjs [--runs N]
//
// Build first (`npm run build`): it imports the built packages and runs the built CLI.
//
// In one process, warm (the median of N runs after two warm-up runs):
//   parse      yaml.parseDocument(text): the baseline
//   print      Prettier's YAML printer alone (prettier/standalone + plugins/yaml), the project's options
//   formatYaml what `format` does to any YAML: the syntax check, the printer, the comparison of values
//   format     what the language server does on a playbook it has analysed (formatPlaybook): formatYaml,
//              then the formatted text analysed again to compare the diagnostics' codes
// In a whole process (the median of N): `node bench/parse-yaml.mjs FILE` against
//   `node cli/dist/kairoku-playbook.js format --check FILE` (startup, config resolution, analysis).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { generatePlaybook } from './generate.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runsAt = process.argv.indexOf('--runs');
const RUNS = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 7;

const { analyzeFile } = await import(join(root, 'compiler', 'dist', 'index.js'));
const { formatPlaybook, formatYaml, prettierOptionsForPath } = await import(
  join(root, 'lsp', 'dist', 'index.js')
);
const { format: print } = await import('prettier/standalone');
const yamlPlugin = await import('prettier/plugins/yaml');

mkdirSync(join(root, 'bench', 'out'), { recursive: true });
const big = join(root, 'bench', 'out', 'big-2000.yml');
writeFileSync(big, generatePlaybook(2000));
const files = [join(root, 'playbooks', 'pr.yml'), big];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function time(run) {
  for (let i = 0; i < 2; i++) await run();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return median(times);
}

function processTime(argv) {
  const times = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, argv, { cwd: root, encoding: 'utf8' });
    const elapsed = performance.now() - start;
    if (result.status !== 0 && result.status !== 1) throw new Error(`${argv.join(' ')}: ${result.stderr}`);
    if (i > 0) times.push(elapsed);
  }
  return median(times);
}

const results = {};
for (const file of files) {
  const name = file.slice(root.length + 1);
  const text = readFileSync(file, 'utf8');
  const config = await prettierOptionsForPath(file);
  if ('refused' in config) throw new Error(config.refused);
  const analysis = analyzeFile(name, text);
  const formatted = await formatPlaybook(analysis, config.options);
  if ('refused' in formatted) throw new Error(`${name}: ${formatted.refused}`);
  const parse = await time(() => parseDocument(text));
  const printOnly = await time(() =>
    print(text, { ...config.options, parser: 'yaml', plugins: [yamlPlugin] }),
  );
  const yamlOnly = await time(() => formatYaml(text, config.options));
  const playbook = await time(() => formatPlaybook(analysis, config.options));
  const parseProcess = processTime([join(root, 'bench', 'parse-yaml.mjs'), file]);
  const formatProcess = processTime([
    join(root, 'cli', 'dist', 'kairoku-playbook.js'),
    'format',
    '--check',
    file,
  ]);
  results[name] = {
    lines: text.split('\n').length,
    changed: formatted.text !== text,
    ms: { parse, print: printOnly, formatYaml: yamlOnly, format: playbook, parseProcess, formatProcess },
    ratio: {
      print: printOnly / parse,
      formatYaml: yamlOnly / parse,
      format: playbook / parse,
      process: formatProcess / parseProcess,
    },
  };
}

const fixed = (n, digits = 1) => n.toFixed(digits);
for (const [name, r] of Object.entries(results)) {
  process.stdout.write(
    `${name} (${r.lines} lines${r.changed ? ', not formatted yet' : ''}):\n` +
      `  in process: parse ${fixed(r.ms.parse)} ms; print ${fixed(r.ms.print)} ms (${fixed(r.ratio.print)}×); ` +
      `formatYaml ${fixed(r.ms.formatYaml)} ms (${fixed(r.ratio.formatYaml)}×); ` +
      `format (LSP) ${fixed(r.ms.format)} ms (${fixed(r.ratio.format)}×)\n` +
      `  whole process: parse-yaml ${fixed(r.ms.parseProcess, 0)} ms; format --check ${fixed(r.ms.formatProcess, 0)} ms (${fixed(r.ratio.process)}×)\n`,
  );
}
writeFileSync(join(root, 'bench', 'out', 'format.json'), `${JSON.stringify(results, null, 2)}\n`);
