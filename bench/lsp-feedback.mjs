#!/usr/bin/env node
// Edit → diagnostics as an editor sees it (see bench/README.md, "Edit → diagnostics").
//
//   node bench/lsp-feedback.mjs [--samples N] [--before FILE]
//
// Real servers over stdio, each started with the options an editor gives by default (no
// `validationDelay`: our server's own default applies), pushing diagnostics:
//   after   this build of our server (lsp/dist/stdio.js);
//   before  another build of it (--before, e.g. a copy of lsp/dist made before a change, kept under
//           bench/out/ so that its imports resolve); left out when not given;
//   yls     yaml-language-server validating the same document against our JSON Schema (small document only).
// Documents: playbooks/pr.yml (its schema modeline made absolute) and the generated 2,000-step playbook.
// A sample is one one-character edit (an `x` inserted, then taken out again, alternately) followed by the
// `textDocument/publishDiagnostics` of its version: the milliseconds between. Edits are isolated (a pause
// of 4× the last sample, at least 250 ms, before each), as when an author types a character and looks.
// Then a burst: 10 characters typed 60 ms apart on pr.yml, the time from the last to its diagnostics and
// the validations the server ran (our `kairoku-playbook/stats`).
// Median and p95 (nearest rank) of N samples (default 30 on pr.yml, N/3 on the big file, at least 5).
// Writes bench/out/lsp-feedback.json; exits 0 whatever the figures, 2 when a build is missing.

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
const afterServer = join(root, 'lsp', 'dist', 'stdio.js');
let beforeServer;
let SAMPLES = 30;
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--samples') SAMPLES = Number(process.argv[++i]);
  else if (process.argv[i] === '--before' && process.argv[i + 1]) beforeServer = resolve(process.argv[++i]);
  else SAMPLES = NaN;
}
if (!Number.isInteger(SAMPLES) || SAMPLES < 5) {
  process.stderr.write('usage: node bench/lsp-feedback.mjs [--samples N] [--before FILE]   (N ≥ 5)\n');
  process.exit(2);
}
for (const file of [afterServer, beforeServer].filter(Boolean)) {
  if (!existsSync(file)) {
    process.stderr.write(`${relative(root, file)} is missing; build first: npx tsc -b\n`);
    process.exit(2);
  }
}
const ylsPackage = join(root, 'node_modules', 'yaml-language-server', 'package.json');
const ylsPkg = JSON.parse(readFileSync(ylsPackage, 'utf8'));
const ylsServer = join(dirname(ylsPackage), ylsPkg.bin['yaml-language-server']);
const schemaUri = pathToFileURL(join(root, 'grammar', 'schema', 'playbook.schema.json')).href;

// ---- the documents ----------------------------------------------------------------------------------
const tmp = mkdtempSync(join(os.tmpdir(), 'kairoku-lsp-feedback-'));
function documentOf(name, text, editLine) {
  const path = join(tmp, name);
  writeFileSync(path, text);
  const lines = text.split('\n');
  const line = lines.findIndex((l, i) => i >= editLine && /^\s+(description|prompt): [A-Za-z]{3}/.test(l));
  if (line < 0) throw new Error(`no line to edit in ${name}`);
  const character = lines[line].indexOf(': ') + 4; // inside the value's first word
  return { name, path, uri: pathToFileURL(path).href, text, lines: lines.length, at: { line, character } };
}
const prText = readFileSync(join(root, 'playbooks', 'pr.yml'), 'utf8').replace(
  /^# yaml-language-server: \$schema=.*$/m,
  `# yaml-language-server: $schema=${schemaUri}`,
);
const small = documentOf('pr.playbook.yml', prText, 0);
const bigText = generatePlaybook(2000);
const big = documentOf('big-2000.playbook.yml', bigText, Math.floor(bigText.split('\n').length / 2));

// ---- the client (bench/lsp-client.mjs) -------------------------------------------------------------
/** The next publishDiagnostics of `uri` for `version` (yaml-language-server sends no version: the next one). */
function nextDiagnostics(client, uri, version) {
  return nextPublish(
    client,
    (p) => p.uri === uri && (p.version === undefined || p.version === null || p.version === version),
    `diagnostics of ${uri} v${version}`,
  );
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function open(client, doc) {
  client.versions ??= new Map();
  client.versions.set(doc.uri, { version: 1, inserted: false });
  const first = nextDiagnostics(client, doc.uri, 1);
  client.connection.sendNotification('textDocument/didOpen', {
    textDocument: { uri: doc.uri, languageId: 'yaml', version: 1, text: doc.text },
  });
  await first;
}

/** Inserts an `x` at the edit place, or takes it out again; resolves with the publish that answers it. */
function edit(client, doc) {
  const state = client.versions.get(doc.uri);
  const version = ++state.version;
  const { line, character } = doc.at;
  const range = state.inserted
    ? { start: { line, character }, end: { line, character: character + 1 } }
    : { start: { line, character }, end: { line, character } };
  const text = state.inserted ? '' : 'x';
  state.inserted = !state.inserted;
  const lines = doc.text.split('\n');
  if (state.inserted) lines[line] = lines[line].slice(0, character) + 'x' + lines[line].slice(character);
  const full = lines.join('\n');
  const waiting = nextDiagnostics(client, doc.uri, version);
  const start = performance.now();
  client.connection.sendNotification('textDocument/didChange', {
    textDocument: { uri: doc.uri, version },
    contentChanges: client.syncKind === 2 ? [{ range, text }] : [{ text: full }],
  });
  return waiting.then(({ at, params }) => ({ ms: at - start, diagnostics: params.diagnostics.length }));
}

// ---- the servers ------------------------------------------------------------------------------------
const ylsSettings = {
  yaml: {
    validate: true,
    hover: false,
    completion: false,
    format: { enable: false },
    schemaStore: { enable: false },
    kubernetesCRDStore: { enable: false },
    customTags: [],
  },
  http: { proxy: '', proxyStrictSSL: false },
};
const ours = (name, entry) => () =>
  startClient(name, [entry], {
    cwd: tmp,
    initializationOptions: {},
    capabilities: { textDocument: { synchronization: {} }, workspace: {} },
  });
const servers = [
  ...(beforeServer ? [{ name: 'before', start: ours('before', beforeServer), docs: [small, big] }] : []),
  { name: 'after', start: ours('after', afterServer), docs: [small, big] },
  {
    name: 'yaml-language-server',
    docs: [small],
    start: async () => {
      const client = await startClient('yaml-language-server', [ylsServer, '--stdio'], {
        cwd: tmp,
        capabilities: { textDocument: { synchronization: {} }, workspace: { didChangeConfiguration: {} } },
        onRequest: {
          'workspace/configuration': ({ items }) => items.map((i) => ylsSettings[i.section] ?? null),
        },
      });
      client.connection.sendNotification('workspace/didChangeConfiguration', { settings: ylsSettings });
      return client;
    },
  },
];

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const results = [];
const problems = [];
for (const server of servers) {
  let client;
  try {
    client = await server.start();
    for (const doc of server.docs) {
      await open(client, doc);
      await sleep(doc === big ? 1500 : 500);
      const count = doc === big ? Math.max(5, Math.round(SAMPLES / 3)) : SAMPLES;
      const samples = [];
      const diagnostics = new Set();
      let last = 0;
      for (let i = 0; i <= count; i++) {
        await sleep(Math.max(250, 4 * last));
        const { ms, diagnostics: n } = await edit(client, doc);
        last = ms;
        if (i > 0) samples.push(ms); // the first is a warm-up
        diagnostics.add(n);
      }
      const row = {
        server: server.name,
        document: doc.name,
        samples,
        median: percentile(samples, 50),
        p95: percentile(samples, 95),
        diagnostics: [...diagnostics],
      };
      results.push(row);
      process.stderr.write(
        `${server.name} ${doc.name}: median ${row.median.toFixed(1)} ms, p95 ${row.p95.toFixed(1)} ms\n`,
      );
    }
    if (server.name !== 'yaml-language-server') {
      // a burst: 10 characters typed 60 ms apart on pr.yml
      await sleep(500);
      const stats = () => withTimeout(client.connection.sendRequest('kairoku-playbook/stats'), 'stats', 5000);
      const before = (await stats()).validations;
      let pending;
      for (let k = 0; k < 10; k++) {
        pending = edit(client, small);
        // a fixed debounce answers only the last version of a burst: the others' waits are dropped
        if (k < 9) pending.catch(() => {});
        if (k < 9) await sleep(60);
      }
      const { ms } = await pending;
      await sleep(500);
      const validations = (await stats()).validations - before;
      results.push({
        server: server.name,
        document: small.name,
        burst: { lastEditToDiagnosticsMs: ms, validations },
      });
      process.stderr.write(
        `${server.name} burst of 10 at 60 ms: last → diagnostics ${ms.toFixed(1)} ms, ${validations} validations\n`,
      );
    }
  } catch (error) {
    problems.push(`${server.name}: ${error.message}`);
    process.stderr.write(`${server.name}: ${error.message}\n${client?.stderr() ?? ''}\n`);
  } finally {
    await stopClient(client);
  }
}
rmSync(tmp, { recursive: true, force: true });

// ---- report -----------------------------------------------------------------------------------------
const out = [];
out.push(
  `edit → diagnostics — node ${process.version}, ${os.cpus().length} CPU(s), load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; pr.yml ${small.lines} lines, big ${big.lines} lines; yaml-language-server ${ylsPkg.version}`,
);
out.push('');
out.push(`  ${'server'.padEnd(22)}${'document'.padEnd(24)}   median       p95   samples`);
for (const r of results.filter((r) => r.samples))
  out.push(
    `  ${r.server.padEnd(22)}${r.document.padEnd(24)}${r.median.toFixed(1).padStart(9)}${r.p95.toFixed(1).padStart(10)}${String(r.samples.length).padStart(10)}`,
  );
for (const r of results.filter((r) => r.burst))
  out.push(
    `  ${r.server.padEnd(22)}burst of 10 edits, 60 ms apart, on pr.yml: last edit → diagnostics ${r.burst.lastEditToDiagnosticsMs.toFixed(1)} ms, ${r.burst.validations} validations`,
  );
for (const p of problems) out.push(`  PROBLEM: ${p}`);
process.stdout.write(`${out.join('\n')}\n`);

const commit = headCommit(root);
mkdirSync(join(benchDir, 'out'), { recursive: true });
writeFileSync(
  join(benchDir, 'out', 'lsp-feedback.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, loadavg: os.loadavg(), commit, before: beforeServer ? relative(root, beforeServer) : null, results, problems }, null, 2)}\n`,
);
process.exit(0);
