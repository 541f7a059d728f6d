#!/usr/bin/env node
// The Playbooks panel's speed in a real Chromium (Debian's /usr/bin/chromium, headless), against the
// panel's fake serve (panel/test/support/fake-api.ts, bundled here with esbuild):
//
//   node bench/panel.mjs [--runs N]
//
// (1) a 2,000-step run (200 rows of 10 parallel steps, half of them done, one loop): from a click on its
//     tab to its graph painted (first render; above 300 steps only the rows near the window are drawn),
//     scrolling to the last row until it is drawn, and a click on the last step until its sheet is open
//     (interactive = first render + that click);
// (2) 200 runs in the list: the page loaded with the first 50 entries (the list's first page), then, all
//     200 listed (More runs), from a click on a tab to that run's graph shown (switch), over 20 switches;
// (3) an event written by the server (a step completing) to the page showing it, over 100 events
//     (measured from Node: includes the test driver's polling, so it is an upper bound);
// (4) Start → gate focused, as the page sees it: from a click on Start run in the start form to the
//     focus on the new run's gate's first control (the run opens at its gate, so this is the page's
//     path: the start request, the run's detail, drawing it, moving the focus), over N rounds.
// Times are measured inside the page with performance.now() where they can be, medians of N rounds
// (default 5) after one warm-up. It reports; it asserts nothing. Build the panel first (npm run build).
/* global document, window, requestAnimationFrame -- the functions given to page.evaluate run in the page */
import { build } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, 'bench', 'out');
const runsArg = process.argv.indexOf('--runs');
const ROUNDS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;

mkdirSync(out, { recursive: true });
const fakeFile = join(out, 'fake-api.mjs');
await build({
  entryPoints: [join(root, 'panel', 'test', 'support', 'fake-api.ts')],
  outfile: fakeFile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  define: {
    'import.meta.url': JSON.stringify(
      pathToFileURL(join(root, 'panel', 'test', 'support', 'fake-api.ts')).href,
    ),
  },
});
const { startFakeApi, TOKEN } = await import(pathToFileURL(fakeFile).href);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const quantile = (xs, q) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const ms = (x) => `${x.toFixed(1)} ms`;

function bigGraph(rows = 200, width = 10) {
  const nodes = [];
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < width; c++)
      nodes.push({
        name: `s${r}-${c}`,
        kind: c === 0 && r % 50 === 49 ? 'gate' : c % 3 === 2 ? 'check' : 'agent',
        needs: r === 0 ? [] : [`s${r - 1}-${c}`, `s${r - 1}-${(c + 1) % width}`],
      });
  return nodes;
}

const browser = await launchChromium();
const results = {};
try {
  // ---------------------------------------------------------------- (1) a 2,000-step run's graph
  {
    const fake = await startFakeApi();
    const nodes = bigGraph();
    const id = fake.addRun({
      title: 'Two thousand steps',
      nodes,
      loops: [{ from: 's150-0', to: 's100-0', outcome: 'again', max: 3, count: 1 }],
    });
    // Half of it done: 100 rows complete, one running. (Its gate at row 50 waits, so a page opened on no
    // run would open this one by itself: the page opens on a small run first, as if it had been chosen.)
    for (let i = 0; i < 100; i++) fake.advance(id);
    const small = fake.addRun({
      title: 'Small run',
      nodes: [{ name: 'only', kind: 'agent', needs: [] }],
      loops: [],
    });
    const render = [];
    const interactive = [];
    const scrolled = [];
    let drawn = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${fake.url}/?token=${TOKEN}`);
      // The runs listed first: the page has opened the waiting run by itself, and will not again after
      // the address below (an address written while the list loads could be overtaken by it).
      await page.locator(`#tab-${small}`).waitFor();
      await page.goto(`${fake.url}/#/runs/${small}`);
      await page.locator('.node-button[data-step="only"]').waitFor();
      await page.locator(`#tab-${id}`).waitFor();
      const t = await page.evaluate(async (tabId) => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const t0 = performance.now();
        document.getElementById(`tab-${tabId}`).click();
        while (!document.querySelector('.node-button[data-step="s0-0"]')) await frame();
        await frame(); // painted
        const rendered = performance.now() - t0;
        const t1 = performance.now();
        window.scrollTo(0, document.documentElement.scrollHeight);
        let last;
        while (!(last = document.querySelector('.node-button[data-step="s199-9"]'))) await frame();
        await frame();
        const scrolled = performance.now() - t1;
        const t2 = performance.now();
        last.click();
        while (!document.querySelector('.sheet h3')) await frame();
        await frame();
        return {
          rendered,
          scrolled,
          interactive: rendered + (performance.now() - t2),
          nodes: document.querySelectorAll('.node').length,
        };
      }, id);
      if (round > 0) {
        render.push(t.rendered);
        interactive.push(t.interactive);
        scrolled.push(t.scrolled);
        drawn = t.nodes;
      }
      if (round === ROUNDS) {
        mkdirSync(join(root, 'test-results', 'panel'), { recursive: true });
        await page.screenshot({ path: join(root, 'test-results', 'panel', 'bench-2000-steps.png') });
      }
      await context.close();
    }
    results.render2000 = median(render);
    results.interactive2000 = median(interactive);
    results.scrollToEnd2000 = median(scrolled);
    results.nodesDrawn2000 = drawn;
    await fake.close();
  }

  // ---------------------------------------------------------------- (2) 200 runs in the list
  {
    const fake = await startFakeApi();
    const ids = [];
    for (let i = 0; i < 200; i++) ids.push(fake.addRun({ title: `Run ${i + 1}` }));
    for (const id of ids.slice(0, 100)) fake.advance(id);
    // The list comes in pages of 50 (More runs): the page is loaded when its first 50 entries are. A median
    // of ROUNDS loads after a warm-up, each in a new context (it was one load: a single sample, too noisy
    // for the 10 % rule).
    const loads = [];
    let context;
    let page;
    for (let round = 0; round <= ROUNDS; round++) {
      await context?.close();
      context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      page = await context.newPage();
      const t0 = performance.now();
      await page.goto(`${fake.url}/?token=${TOKEN}`);
      await page.waitForFunction(() => document.querySelectorAll('[role="tab"]').length === 50);
      if (round > 0) loads.push(performance.now() - t0);
    }
    results.load200 = median(loads);
    for (let listed = 50; listed < 200; listed += 50) {
      await page.getByRole('button', { name: 'More runs' }).click();
      await page.waitForFunction((n) => document.querySelectorAll('[role="tab"]').length === n, listed + 50);
    }
    const switches = [];
    for (let i = 0; i <= 20 * ROUNDS; i++) {
      const id = ids[(i * 37) % ids.length];
      const t = await page.evaluate(async (runId) => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const t0 = performance.now();
        document.getElementById(`tab-${runId}`).click();
        while (
          !document.querySelector(`#run-panel .node`) ||
          document.querySelector('#run-panel .run-view')?.getAttribute('data-run') !== runId
        )
          await frame();
        await frame();
        return performance.now() - t0;
      }, id);
      if (i > 0) switches.push(t);
    }
    results.switch200Median = median(switches);
    results.switch200P95 = quantile(switches, 0.95);

    // ------------------------------------------------------------ (3) event written → page shows it
    const id = fake.addRun({
      title: 'Event latency',
      nodes: bigGraph(101, 1).map((n) => ({ ...n, kind: 'agent', needs: n.needs.slice(0, 1) })),
      loops: [],
    });
    await page.locator(`#tab-${id}`).click();
    await page.locator('.node-button[data-step="s0-0"][data-status="running"]').waitFor();
    const latencies = [];
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      fake.advance(id);
      await page.locator(`.node-button[data-step="s${i + 1}-0"][data-status="running"]`).waitFor();
      latencies.push(performance.now() - t0);
    }
    results.eventMedian = median(latencies);
    results.eventP99 = quantile(latencies, 0.99);
    await context.close();
    await fake.close();
  }

  // ---------------------------------------------------------------- (4) Start → gate focused
  {
    const fake = await startFakeApi();
    fake.startRunsWith({ nodes: [{ name: 'ship', kind: 'gate', needs: [] }], loops: [] });
    const focused = [];
    for (let round = 0; round <= ROUNDS; round++) {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${fake.url}/?token=${TOKEN}`);
      await page.locator('.connection.on').waitFor();
      await page.getByRole('button', { name: 'Start Open a pull request' }).click();
      await page.getByLabel('task').fill(`Bench round ${round}`);
      const t = await page.evaluate(
        () =>
          new Promise((resolve) => {
            const start = [...document.querySelectorAll('form.start-form button[type="submit"]')].find(
              (b) => b.textContent.trim() === 'Start run',
            );
            const t0 = performance.now();
            document.addEventListener('focusin', function onFocus(event) {
              if (!event.target.closest('.waiting-gates')) return;
              document.removeEventListener('focusin', onFocus);
              resolve(performance.now() - t0);
            });
            start.click();
          }),
      );
      if (round > 0) focused.push(t);
      // Decided, so the next round's page does not open on a waiting run by itself.
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.locator('.run-header .badge.completed').waitFor();
      await context.close();
    }
    results.startToGateFocused = median(focused);
    await fake.close();
  }
} finally {
  await browser.close();
}

console.log(`panel bench (Chromium headless, median of ${ROUNDS} after a warm-up)`);
console.log(
  `  2,000-step run: first render ${ms(results.render2000)}, interactive (a step's sheet open) ${ms(results.interactive2000)}; ` +
    `scroll to the last row and draw it ${ms(results.scrollToEnd2000)} (${results.nodesDrawn2000} of 2,000 nodes in the page at once)`,
);
console.log(
  `  200 runs: page loaded with its first 50 entries ${ms(results.load200)}; switch tab median ${ms(results.switch200Median)}, p95 ${ms(results.switch200P95)}`,
);
console.log(
  `  event written → page shows it (100 events, from Node): median ${ms(results.eventMedian)}, p99 ${ms(results.eventP99)}`,
);
console.log(`  Start → gate focused, as the page sees it: median ${ms(results.startToGateFocused)}`);
writeFileSync(join(out, 'panel.json'), `${JSON.stringify(results, null, 2)}\n`);
