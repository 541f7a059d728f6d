import { Worker } from 'node:worker_threads';
import type { Ir } from '@kairoku-playbook/compiler';

/** How long a start's input patterns may take, all together, before the start is refused. */
export const PATTERN_BUDGET_MS = 250;

/** The worker: each value tested against its pattern, in order; told back when all are done. */
const TESTER = `
const { parentPort, workerData } = require('node:worker_threads');
for (const { pattern, value } of workerData) new RegExp(pattern, 'u').test(value);
parentPort.postMessage('done');
`;

/**
 * Runs the patterns of a start's string inputs on their values in a worker, within a time budget, so a
 * pattern that takes long on a value (exponential ones are PB108 errors, but a polynomial one on a long
 * value can still take seconds) never stalls serve's event loop: past the budget the worker is stopped
 * and the name of the first such input is returned, for the start to be refused. Undefined: the values
 * can be checked on the loop (the input schema's check that follows takes no longer than here).
 */
export async function slowPattern(
  ir: Ir,
  inputs: Record<string, unknown>,
  budgetMs = PATTERN_BUDGET_MS,
): Promise<string | undefined> {
  const tests = patternTests(ir, inputs);
  if (!tests.length) return undefined;
  const worker = new Worker(TESTER, { eval: true, workerData: tests });
  try {
    const finished = await new Promise<boolean>((resolve) => {
      // The budget is the patterns' time: it starts once the worker runs (its start-up is not theirs).
      let timer: ReturnType<typeof setTimeout> | undefined;
      worker.once('online', () => (timer = setTimeout(() => resolve(false), budgetMs)));
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      worker.once('message', done);
      // (an invalid pattern throws in the worker: the schema check that follows says what is wrong)
      worker.once('error', done);
      worker.once('exit', done);
    });
    return finished ? undefined : tests[0]!.name;
  } finally {
    await worker.terminate();
  }
}

function patternTests(
  ir: Ir,
  inputs: Record<string, unknown>,
): { name: string; pattern: string; value: string }[] {
  const properties = (ir.inputSchema.properties ?? {}) as Record<string, { pattern?: unknown }>;
  const tests: { name: string; pattern: string; value: string }[] = [];
  for (const [name, value] of Object.entries(inputs)) {
    const pattern = properties[name]?.pattern;
    if (typeof pattern === 'string' && typeof value === 'string') tests.push({ name, pattern, value });
  }
  return tests;
}
