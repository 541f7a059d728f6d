#!/usr/bin/env node
// Latency of the language server on a big playbook (see bench/README.md, "Language server").
//
//   node bench/lsp.mjs [--runs N] [--server FILE]   (N ≥ 5, default 7; FILE default lsp/dist/stdio.js)
//
// Real servers over stdio, driven by a JSON-RPC client (vscode-jsonrpc), on the generated
// 2,000-step playbook:
//   ours      our server (lsp/dist/stdio.js, validationDelay 0, push diagnostics): time from a
//             one-character `textDocument/didChange` inside a prompt to the next
//             `textDocument/publishDiagnostics` of that version, raw;
//   compiler  the compiler in this process: `validateWorkspace([{ file, text }])` on the same edited
//             texts (no `previous`: the whole file is analysed, as `check` does);
//   incremental  the same, handed the previous round's analyses (`previous`), as the server does: an edit
//             inside a template is analysed incrementally (compiler/src/incremental.ts);
//   yls       yaml-language-server validating the same document against our JSON Schema
//             (`yaml.schemas`), same didChange → publishDiagnostics timing, raw (it includes YLS's
//             fixed 200 ms validation debounce, which is not a setting; the figure net of it is shown too);
//   completion and hover on our server at five positions of the big document.
// `--server` measures another build of our server (an older one kept aside, for a before/after).
// One warm-up round, then N rounds; within a round each measurement runs once and the order of the
// three validation measurements rotates. The figure is the median. Ratios against the compiler and
// YLS are measured in the same run. Writes bench/out/lsp-results.json; exits 0 whatever the figures
// (it reports), 2 when the build is missing, 1 when a server cannot be measured at all.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generatePlaybook } from './generate.mjs';
import {
  headCommit,
  nextDiagnostics as nextPublish,
  startClient,
  stopClient,
  withTimeout,
} from './lsp-client.mjs';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const outDir = join(benchDir, 'out');
let ourServer = join(root, 'lsp', 'dist', 'stdio.js');
const compilerEntry = join(root, 'compiler', 'dist', 'index.js');
const ylsPackage = join(root, 'node_modules', 'yaml-language-server', 'package.json');
const schemaPath = join(root, 'grammar', 'schema', 'playbook.schema.json');
const STEPS = 2000;
const YLS_DEBOUNCE_MS = 200; // yamlSettings.validationDelayMs in yaml-language-server, not configurable

let RUNS = 7;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--runs') RUNS = Number(process.argv[++i]);
  else if (process.argv[i] === '--server' && process.argv[i + 1]) ourServer = resolve(process.argv[++i]);
  else RUNS = NaN;
}
if (!Number.isInteger(RUNS) || RUNS < 5) {
  process.stderr.write('usage: node bench/lsp.mjs [--runs N] [--server FILE]   (N ≥ 5)\n');
  process.exit(2);
}
for (const file of [ourServer, compilerEntry]) {
  if (!existsSync(file)) {
    process.stderr.write(`${relative(root, file)} is missing; build first: npx tsc -b\n`);
    process.exit(2);
  }
}
const ylsPkg = JSON.parse(readFileSync(ylsPackage, 'utf8'));
const ylsServer = join(dirname(ylsPackage), ylsPkg.bin['yaml-language-server']);
const { validateWorkspace } = await import(pathToFileURL(compilerEntry).href);

// ---- the document and its edits ---------------------------------------------------------------
// The generated playbook with one change: the empty line after a step 75 % into the file holds that step's
// key indentation (four spaces), where an author starts a new key of the step.
const generated = generatePlaybook(STEPS).split('\n');
const newKeyLine = generated.findIndex(
  (line, i) =>
    i >= generated.length * 0.75 &&
    line === '' &&
    /^ {6}/.test(generated[i - 1]) &&
    /^ {2}\w+:$/.test(generated[i + 1]),
);
generated[newKeyLine] = '    ';
const original = generated.join('\n');
const tmp = mkdtempSync(join(os.tmpdir(), 'kairoku-lsp-bench-'));
const docPath = join(tmp, `big-${STEPS}.playbook.yml`);
writeFileSync(docPath, original);
const uri = pathToFileURL(docPath).href;
const lines = original.split('\n');

/** the first line at or after `fraction` of the document matching `re` */
function lineAt(fraction, re) {
  for (let i = Math.floor(lines.length * fraction); i < lines.length; i++) if (re.test(lines[i])) return i;
  throw new Error(`no line matching ${re} after ${fraction}`);
}
// Positions for completion and hover (these lines are never edited).
const completionLine = lineAt(0.7, /\$\{\{ inputs\.task \}\}/);
const stepKeyLine = lineAt(0.75, /^ {2}l\d_\w+:$/);
// the nearest `role:` key of a step above the new-key line
let roleLine = newKeyLine;
while (!/^ {4}role: /.test(lines[roleLine])) roleLine--;
const exprLine = lineAt(0.8, /\$\{\{ steps\.\w+\.outputs\.\w+ \}\}/);
const exprMatch = /\$\{\{ (steps\.\w+\.outputs\.(\w+)) \}\}/.exec(lines[exprLine]);
const POSITIONS = [
  {
    id: 'inputs',
    what: 'after `inputs.` in `${{ inputs.task }}`',
    position: {
      line: completionLine,
      character: lines[completionLine].indexOf('inputs.') + 'inputs.'.length,
    },
  },
  { id: 'stepKey', what: 'on a step name (a key of `steps`)', position: { line: stepKeyLine, character: 4 } },
  {
    id: 'newKey',
    what: 'at a new key in a step (blank line)',
    position: { line: newKeyLine, character: 4 },
  },
  { id: 'key', what: 'on the key `role` of a step', position: { line: roleLine, character: 6 } },
  {
    id: 'expression',
    what: 'on `steps.S.outputs.O` in an expression',
    position: {
      line: exprLine,
      character: lines[exprLine].indexOf(exprMatch[1]) + exprMatch[1].length - exprMatch[2].length + 1,
    },
  },
];
const reserved = new Set([completionLine, stepKeyLine, newKeyLine, roleLine, exprLine]);

// One-character edits inside prompts, spread over the document; cumulative (each round adds one).
const promptLines = [];
for (let i = 1; i < lines.length; i++)
  if (/^\s+prompt: \|$/.test(lines[i - 1]) && /^ {6}[A-Za-z]{4}/.test(lines[i]) && !reserved.has(i))
    promptLines.push(i);
const EDITS = RUNS + 1;
const edits = [];
const texts = [];
{
  const current = [...lines];
  for (let k = 0; k < EDITS; k++) {
    const line = promptLines[Math.floor(((k + 0.5) / EDITS) * promptLines.length)];
    const character = 8; // inside the prompt's first word
    current[line] = current[line].slice(0, character) + 'x' + current[line].slice(character);
    edits.push({ line, character });
    texts.push(current.join('\n'));
  }
}

// ---- the client (bench/lsp-client.mjs) --------------------------------------------------------
/** The next publishDiagnostics of the document for which `match(params)` holds. */
const nextDiagnostics = (client, match, what) =>
  nextPublish(client, (params) => params.uri === uri && match(params), what);

/** Waits until the server has published nothing for `quietMs`. */
async function settle(client, quietMs) {
  const start = performance.now();
  while (performance.now() - Math.max(client.lastPublish, start) < quietMs)
    await new Promise((r) => setTimeout(r, 20));
}

/** Our server sends the version it validated; yaml-language-server sends none: take the next publish. */
const forVersion = (client, version) => (params) =>
  params.version === undefined || params.version === null || params.version === version;

function open(client, text) {
  client.version = 1;
  client.text = text;
  client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri, languageId: 'yaml', version: 1, text },
  });
}

/**
 * Sends one change (range → newText, as the server's sync kind asks) and returns the milliseconds
 * to the next publishDiagnostics of that version, with the diagnostics.
 */
async function change(client, range, newText, fullText) {
  const version = ++client.version;
  const contentChanges = client.syncKind === 2 ? [{ range, text: newText }] : [{ text: fullText }];
  const waiting = nextDiagnostics(client, forVersion(client, version), `diagnostics of version ${version}`);
  const start = performance.now();
  client.connection.sendNotification('textDocument/didChange', {
    textDocument: { uri, version },
    contentChanges,
  });
  const { at, params } = await waiting;
  client.text = fullText;
  return { ms: at - start, diagnostics: params.diagnostics };
}

// ---- start the servers --------------------------------------------------------------------------
const schemaUri = pathToFileURL(schemaPath).href;
const ylsSettings = {
  yaml: {
    validate: true,
    hover: false,
    completion: false,
    format: { enable: false },
    schemas: { [schemaUri]: '*.playbook.yml' },
    schemaStore: { enable: false },
    kubernetesCRDStore: { enable: false },
    customTags: [],
  },
  http: { proxy: '', proxyStrictSSL: false },
};

const clientInfo = { name: 'kairoku-playbook bench/lsp.mjs' };
let ours;
let yls;
const checks = {};
const problems = [];
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

try {
  ours = await startClient('ours', [ourServer], {
    cwd: tmp,
    clientInfo,
    initializationOptions: { validationDelay: 0 },
    // no textDocument.diagnostic: the server pushes
    capabilities: { textDocument: { synchronization: {}, completion: {}, hover: {} }, workspace: {} },
  });
  yls = await startClient('yaml-language-server', [ylsServer, '--stdio'], {
    cwd: tmp,
    clientInfo,
    capabilities: { textDocument: { synchronization: {} }, workspace: { didChangeConfiguration: {} } },
    onRequest: {
      // yaml-language-server pulls its settings on every didChangeConfiguration
      'workspace/configuration': ({ items }) => items.map((item) => ylsSettings[item.section] ?? null),
    },
  });
  yls.connection.sendNotification('workspace/didChangeConfiguration', { settings: ylsSettings });

  // Open the document in both, wait for the first diagnostics.
  for (const client of [ours, yls]) {
    const first = nextDiagnostics(client, () => true, 'diagnostics after open');
    open(client, original);
    const { params } = await first;
    await settle(client, client === yls ? 1000 : 300);
    checks[client.name] = { openDiagnostics: (client.published.get(uri) ?? params).diagnostics.length };
  }

  // Validation must be real: a wrong top-level key must give a diagnostic, in both servers.
  const wrongKeyLine = 1; // after `# Generated…`, before `version: 1`
  const wrong = 'bogus_key: 1\n';
  for (const client of [ours, yls]) {
    const at = { line: wrongKeyLine, character: 0 };
    const withWrong = [
      ...lines.slice(0, wrongKeyLine),
      wrong.slice(0, -1),
      ...lines.slice(wrongKeyLine),
    ].join('\n');
    const bad = await change(client, { start: at, end: at }, wrong, withWrong);
    const hit = bad.diagnostics.find((d) => d.range.start.line === wrongKeyLine);
    const back = await change(
      client,
      { start: at, end: { line: wrongKeyLine + 1, character: 0 } },
      '',
      original,
    );
    await settle(client, client === yls ? 500 : 100);
    checks[client.name].wrongKey = hit ? { code: hit.code ?? null, message: hit.message } : null;
    checks[client.name].afterRevert = back.diagnostics.length;
    if (!hit) problems.push(`${client.name}: a wrong top-level key gave no diagnostic on its line`);
  }
} catch (error) {
  process.stderr.write(`error: ${error.message}\n`);
  for (const c of [ours, yls])
    if (c)
      process.stderr.write(
        `--- ${c.name} stderr ---\n${c.stderr?.() ?? ''}\n${(c.logs ?? []).slice(-5).join('\n')}\n`,
      );
  await Promise.allSettled([stopClient(ours), stopClient(yls)]);
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}

// ---- the rounds ----------------------------------------------------------------------------------
const samples = { ours: [], compiler: [], incremental: [], yls: [] };
for (const p of POSITIONS) samples[`completion:${p.id}`] = [];
for (const p of POSITIONS) samples[`hover:${p.id}`] = [];
for (const m of ['completion', 'hover']) for (const p of POSITIONS) samples[`again:${m}:${p.id}`] = [];
const diagnosticsSeen = { ours: [], compiler: [], incremental: [], yls: [] };
const featureResults = {};

async function measureServer(client, round) {
  const { line, character } = edits[round];
  const at = { line, character };
  const result = await change(client, { start: at, end: at }, 'x', texts[round]);
  await settle(client, client === yls ? YLS_DEBOUNCE_MS + 200 : 50);
  return result;
}
function measureCompiler(round) {
  const start = performance.now();
  const { diagnostics } = validateWorkspace([{ file: docPath, text: texts[round] }]);
  return { ms: performance.now() - start, diagnostics };
}
let previousAnalyses = validateWorkspace([{ file: docPath, text: original }]).analyses;
function measureIncremental(round) {
  const start = performance.now();
  const { diagnostics, analyses } = validateWorkspace(
    [{ file: docPath, text: texts[round] }],
    previousAnalyses,
  );
  const ms = performance.now() - start;
  previousAnalyses = analyses;
  return { ms, diagnostics };
}

const KINDS = ['ours', 'compiler', 'yls'];
try {
  for (let round = 0; round <= RUNS; round++) {
    const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]);
    const results = {};
    for (const kind of order) {
      if (kind === 'compiler') {
        results.compiler = measureCompiler(round);
        results.incremental = measureIncremental(round);
      } else results[kind] = await measureServer(kind === 'ours' ? ours : yls, round);
    }
    // completion and hover on our server, the document idle, in this order: the first request after
    // the edit pays for what the server builds lazily per analysis (the YAML document, the symbol
    // index); each request is then sent again (`again`, informational)
    for (const pass of ['', 'again:'])
      for (const p of POSITIONS) {
        for (const method of ['completion', 'hover']) {
          const start = performance.now();
          const answer = await withTimeout(
            ours.connection.sendRequest(`textDocument/${method}`, {
              textDocument: { uri },
              position: p.position,
            }),
            `ours: ${method}`,
          );
          const ms = performance.now() - start;
          const id = `${pass}${method}:${p.id}`;
          featureResults[id] =
            method === 'completion'
              ? `${(Array.isArray(answer) ? answer : (answer?.items ?? [])).length} items`
              : answer
                ? `hover: ${JSON.stringify(answer.contents).slice(0, 60)}…`
                : 'no hover';
          if (round > 0) samples[id].push(ms);
        }
      }
    if (round > 0) {
      for (const kind of [...KINDS, 'incremental']) {
        samples[kind].push(results[kind].ms);
        diagnosticsSeen[kind].push(results[kind].diagnostics.length);
      }
    }
    process.stderr.write(
      `${round === 0 ? 'warm-up' : `round ${round}/${RUNS}`}: ours ${results.ours.ms.toFixed(0)} ms, compiler ${results.compiler.ms.toFixed(0)} ms, incremental ${results.incremental.ms.toFixed(0)} ms, yaml-language-server ${results.yls.ms.toFixed(0)} ms\n`,
    );
  }
} catch (error) {
  problems.push(`measurement stopped: ${error.message}`);
  process.stderr.write(`error: ${error.message}\n`);
}

const stats = {};
for (const c of [ours, yls]) {
  if (c === ours) {
    try {
      stats.ours = await withTimeout(ours.connection.sendRequest('kairoku-playbook/stats'), 'stats', 5000);
    } catch {
      // informational
    }
  }
}
await Promise.allSettled([stopClient(ours), stopClient(yls)]);
rmSync(tmp, { recursive: true, force: true });

// ---- report --------------------------------------------------------------------------------------
const medians = Object.fromEntries(
  Object.entries(samples).map(([k, xs]) => [k, xs.length ? median(xs) : NaN]),
);
const ylsNet = medians.yls - YLS_DEBOUNCE_MS;
const targets = [
  {
    id: '1/2',
    what: 'ours (1) / compiler (2)',
    ratio: medians.ours / medians.compiler,
    max: 1.3,
  },
  {
    id: "2'/2",
    what: "compiler incremental (2') / compiler full (2)",
    ratio: medians.incremental / medians.compiler,
    max: 0.2,
  },
  {
    id: '1/3',
    what: 'ours (1) / yaml-language-server (3), both raw',
    ratio: medians.ours / medians.yls,
    max: 1,
    strict: true,
  },
  {
    id: "1/3'",
    what: `ours (1) / yaml-language-server (3) − its ${YLS_DEBOUNCE_MS} ms debounce`,
    ratio: medians.ours / ylsNet,
  },
].map((t) => ({
  ...t,
  pass: t.max === undefined ? undefined : t.strict ? t.ratio < t.max : t.ratio <= t.max,
}));
const featureTargets = POSITIONS.flatMap((p) =>
  ['completion', 'hover'].map((method) => {
    const id = `${method}:${p.id}`;
    return {
      id,
      what: `${method} ${p.what}`,
      ms: medians[id],
      max: 50,
      pass: medians[id] < 50,
      result: featureResults[id],
    };
  }),
);

const ms = (x) => `${x.toFixed(1).padStart(8)} ms`;
const out = [];
out.push(
  `kairoku-playbook language server latency — node ${process.version}, ${os.cpus().length} CPU(s), load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, median of ${RUNS} after 1 warm-up`,
);
out.push(
  `document: big-${STEPS}.playbook.yml, ${lines.length - 1} lines, ${(Buffer.byteLength(original) / 1024).toFixed(0)} KiB; ` +
    `sync: ours ${ours.syncKind === 2 ? 'incremental' : 'full'}, yaml-language-server ${yls.syncKind === 2 ? 'incremental' : 'full'} ${ylsPkg.version}`,
);
out.push('');
out.push(`  ${'measurement'.padEnd(60)}     median        min        max`);
const row = (label, xs) =>
  `  ${label.padEnd(60)}${ms(median(xs))}${ms(Math.min(...xs))}${ms(Math.max(...xs))}`;
out.push(row('(1) ours: didChange → publishDiagnostics', samples.ours));
out.push(row('(2) compiler: validateWorkspace, in process', samples.compiler));
out.push(row("(2') compiler: validateWorkspace with previous, in process", samples.incremental));
out.push(row('(3) yaml-language-server: didChange → publishDiagnostics', samples.yls));
for (const t of featureTargets) out.push(row(`(4) ${t.what}`, samples[t.id]));
for (const t of featureTargets) out.push(row(`    again: ${t.what}`, samples[`again:${t.id}`]));
out.push('');
out.push(`  ${'target'.padEnd(62)} ratio   target  result`);
for (const t of targets)
  out.push(
    `  ${`(${t.id}) ${t.what}`.padEnd(62)} ${t.ratio.toFixed(2).padStart(5)}×  ${t.max === undefined ? '   info' : `${t.strict ? '<' : '≤'} ${t.max}`.padStart(7)}  ${t.pass === undefined ? '' : t.pass ? 'PASS' : 'FAIL'}`,
  );
out.push(
  `  yaml-language-server / ours: ${(medians.yls / medians.ours).toFixed(2)}× raw, ${(ylsNet / medians.ours).toFixed(2)}× net of its debounce`,
);
for (const t of featureTargets)
  out.push(
    `  ${`(4) ${t.what}`.padEnd(60)}${ms(t.ms)}  < 50 ms  ${t.pass ? 'PASS' : 'FAIL'}   (${t.result})`,
  );
out.push('');
out.push(
  `  checks: ours: ${checks.ours.openDiagnostics} diagnostic(s) on open, wrong key → ${checks.ours.wrongKey ? `${checks.ours.wrongKey.code} "${checks.ours.wrongKey.message}"` : 'NONE'}; ` +
    `yaml-language-server: ${checks['yaml-language-server'].openDiagnostics} on open, wrong key → ${checks['yaml-language-server'].wrongKey ? `"${checks['yaml-language-server'].wrongKey.message}"` : 'NONE'}`,
);
out.push(
  `  diagnostics after each timed edit: ours ${[...new Set(diagnosticsSeen.ours)].join('/')}, compiler ${[...new Set(diagnosticsSeen.compiler)].join('/')}, incremental ${[...new Set(diagnosticsSeen.incremental)].join('/')}, yaml-language-server ${[...new Set(diagnosticsSeen.yls)].join('/')}`,
);
for (const p of problems) out.push(`  PROBLEM: ${p}`);
process.stdout.write(`${out.join('\n')}\n`);

const commit = headCommit(root);
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, 'lsp-results.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model,
      loadavg: os.loadavg(),
      commit,
      runs: RUNS,
      document: { steps: STEPS, lines: lines.length - 1, bytes: Buffer.byteLength(original) },
      servers: {
        ours: { entry: relative(root, ourServer), syncKind: ours.syncKind, stats: stats.ours ?? null },
        yls: {
          entry: relative(root, ylsServer),
          version: ylsPkg.version,
          syncKind: yls.syncKind,
          debounceMs: YLS_DEBOUNCE_MS,
        },
      },
      edits,
      positions: POSITIONS,
      samples,
      medians,
      targets,
      featureTargets,
      checks,
      diagnosticsSeen,
      problems,
    },
    null,
    2,
  )}\n`,
);
process.exit(0);
