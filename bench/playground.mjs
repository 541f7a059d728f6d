#!/usr/bin/env node
// The playground's cost (playground/build.mjs builds it into docs/playground/):
//
//   node bench/playground.mjs [--keys N]
//
// (1) the bundle: playground.js raw and gzipped (zlib, level 9), and the page's three files together;
// (2) keystroke → diagnostics on playbooks/pr.yml in a real Chromium (Debian's /usr/bin/chromium,
//     headless, the page opened from its file: URL): a character typed into review's `needs: [qa]`
//     (`[qax]`, an unknown step: one diagnostic), then deleted (none), N times each (default 50, after 10
//     warm-up keys). Timed inside the page with performance.now(): from the keydown event to the frame
//     after the page's check has put the diagnostics in the editor and the list (requestAnimationFrame);
//     the page checks the whole text on every change, as the issue asks;
// (3) the baseline, in the same run: the same check (engine.ts's checkText: validate, the JSON of
//     `check --format json`, compile, graph layout), bundled for Node from the same sources, on the same
//     two texts, the same number of times.
// Median and p95 of each. It reports; it asserts nothing.
/* global document, window, performance, requestAnimationFrame, MutationObserver -- page.evaluate runs these in the page */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance as nodePerformance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { launchChromium } from './chromium.mjs';
import { PLAYGROUND_DIST, buildEngineForNode, buildPlayground } from '../playground/build.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, 'bench', 'out');
const keysArg = process.argv.indexOf('--keys');
const KEYS = keysArg > 0 ? Number(process.argv[keysArg + 1]) : 50;
const WARM = 10;
mkdirSync(out, { recursive: true });

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const ms = (n) => `${n.toFixed(1)} ms`;
function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: at(0.5), p95: at(0.95), n: sorted.length };
}

// (1) the bundle
await buildPlayground();
const script = readFileSync(join(PLAYGROUND_DIST, 'playground.js'));
const files = ['index.html', 'playground.js', 'playground.css'];
const all = files.reduce((sum, name) => sum + statSync(join(PLAYGROUND_DIST, name)).size, 0);
const allGzip = files.reduce(
  (sum, name) => sum + gzipSync(readFileSync(join(PLAYGROUND_DIST, name)), { level: 9 }).length,
  0,
);
console.log(
  `bundle: playground.js ${kib(script.length)} raw, ${kib(gzipSync(script, { level: 9 }).length)} gzip; the page's three files ${kib(all)} raw, ${kib(allGzip)} gzip`,
);

// (3) the baseline, in Node
const text = readFileSync(join(root, 'playbooks', 'pr.yml'), 'utf8');
const typed = text.replace('    needs: [qa]\n', '    needs: [qax]\n');
const engineFile = join(out, 'playground-engine.mjs');
await buildEngineForNode(engineFile);
const { checkText } = await import(pathToFileURL(engineFile).href);
const nodeSamples = [];
for (let i = 0; i < WARM + 2 * KEYS; i++) {
  const start = nodePerformance.now();
  checkText('pr.yml', i % 2 ? text : typed);
  if (i >= WARM) nodeSamples.push(nodePerformance.now() - start);
}

// (2) keystroke → diagnostics in Chromium
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
await page.goto(pathToFileURL(join(PLAYGROUND_DIST, 'index.html')).href);
await page.locator('body[data-generation]').waitFor();
await page.evaluate(() => {
  window.benchSamples = [];
  let keyAt = 0;
  document.addEventListener('keydown', () => (keyAt = performance.now()), { capture: true });
  new MutationObserver(() => {
    if (!keyAt) return;
    const from = keyAt;
    keyAt = 0;
    requestAnimationFrame(() => window.benchSamples.push(performance.now() - from));
  }).observe(document.body, { attributes: true, attributeFilter: ['data-generation'] });
});
await page.locator('.cm-line', { hasText: /^ {4}needs: \[qa\]$/ }).click();
await page.keyboard.press('End');
await page.keyboard.press('ArrowLeft');
const browserSamples = [];
for (let i = 0; i < WARM + 2 * KEYS; i++) {
  const count = await page.evaluate(() => window.benchSamples.length);
  if (i % 2 === 0) await page.keyboard.type('x');
  else await page.keyboard.press('Backspace');
  await page.waitForFunction((n) => window.benchSamples.length > n, count);
  const shown = await page.locator('.problem').count();
  if (shown !== (i % 2 === 0 ? 1 : 0)) throw new Error(`after key ${i} the page shows ${shown} problems`);
  if (i >= WARM) browserSamples.push(await page.evaluate(() => window.benchSamples.at(-1)));
}
await browser.close();

const b = stats(browserSamples);
const n = stats(nodeSamples);
console.log(
  `keystroke → diagnostics on pr.yml in Chromium: median ${ms(b.median)}, p95 ${ms(b.p95)} (${b.n} keys)`,
);
console.log(`baseline, the same check in Node: median ${ms(n.median)}, p95 ${ms(n.p95)} (${n.n} checks)`);
console.log(`ratio (medians): ${(b.median / n.median).toFixed(2)}×`);
