// What the Kairoku benches share (kairoku-claims.mjs, fleet-scale.mjs): their flags, the app token and
// repository the runners name, compiling a generated playbook, queueing runs on a backend, and the
// figures' arithmetic. Imported after `npx tsc -b` (it reads the built packages).
import { compilePlaybook } from '../compiler/dist/index.js';
import { createRun } from '../machine/dist/core/create-run.js';
import { Driver } from '../runtime/dist/driver/driver.js';

/** `--name N` from the command line, else `fallback`. */
export const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};

export const TOKEN = 'bench-app-token-0123456789';
export const REPO = 'git@example.com:acme/shop.git';

/** A generated playbook's IR; a playbook that does not compile is a bug of the bench. */
export function compile(yaml) {
  const { ir, diagnostics } = compilePlaybook('bench.yml', yaml);
  if (!ir) throw new Error(diagnostics.map((d) => `${d.code} ${d.message}`).join('\n'));
  return ir;
}

/** `count` runs of `ir` started on `backend` (ids `PREFIX-i`): their ready check steps are queued. */
export function queueRuns(backend, ir, count, prefix = 'run') {
  const drivers = [];
  for (let i = 0; i < count; i++) {
    const state = createRun(ir, {
      id: `${prefix}-${i}`,
      inputs: {},
      now: Date.now(),
      backend: 'kairoku',
      branch: '',
    });
    const driver = new Driver(state, { backend });
    driver.dispatch({ type: 'start' });
    drivers.push(driver);
  }
  return drivers;
}

export const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
export const median = (values) => quantile(values, 0.5);
export const ms = (value) => `${value.toFixed(3)} ms`;
