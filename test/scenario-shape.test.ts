/**
 * Issue 26: the runtime's scenario checks and the compiler's test-file checks are one implementation.
 * The same generated malformed playbook tests (wrong types, unknown keys, bad enums, at every depth) go to
 * `check` (PB800) and to the runtime's readers (`readScenario`, `readExpectation`: what `kairoku-playbook
 * test`, `run --scenario`, `serve` and `mcp` read), and both must find a problem at the same places.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { analyzeFile, analyzeTestFile, compilePlaybook } from '@kairoku-playbook/compiler';
import { parseYaml, readExpectation, readScenario } from '@kairoku-playbook/runtime';

const repo = new URL('../', import.meta.url).pathname;
const playbookText = readFileSync(`${repo}playbooks/pr.yml`, 'utf8');
const playbook = analyzeFile('playbooks/pr.yml', playbookText);
const ir = compilePlaybook('playbooks/pr.yml', playbookText).ir!;

/** A valid test of pr.yml with every key a test may have, one report and one decision as a mapping. */
function baseTest(): Record<string, unknown> {
  const test = parse(readFileSync(`${repo}playbooks/pr.test.yml`, 'utf8')) as Record<string, unknown>;
  const steps = test.steps as Record<string, unknown>;
  steps.plan = { outcome: 'done', summary: 'a plan', silent: false };
  test.after = { summarize: [{ outcome: 'done', outputs: {} }] };
  test.gates = { ship: { choice: 'approve', comment: null } };
  return { $schema: 'https://kairoku.dev/schemas/playbook-test-v1.schema.json', ...test };
}

type Path = (string | number)[];

/** Every place in a value, with the value there. */
function places(value: unknown, path: Path = []): { path: Path; value: unknown }[] {
  const found = [{ path, value }];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...places(item, [...path, i])));
  else if (value && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) found.push(...places(item, [...path, key]));
  return found;
}

function withValueAt(root: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const segment of path.slice(0, -1)) at = at[segment] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}

const WRONG_VALUES: unknown[] = [5, -1, 1.5, 'done', true, null, [], [7], {}, { x: 1 }];

/** The malformed tests: each place's value replaced, and each mapping given an unknown key and a typo. */
function malformedTests(): { what: string; value: unknown }[] {
  const base = baseTest();
  const tests: { what: string; value: unknown }[] = [];
  for (const { path, value } of places(base)) {
    if (path.length === 0) continue;
    const where = path.join('.');
    for (const wrong of WRONG_VALUES)
      tests.push({ what: `${where} = ${JSON.stringify(wrong)}`, value: withValueAt(base, path, wrong) });
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const keys = Object.keys(value);
      const typo = keys[0] ? `${keys[0]}x` : 'bogus';
      for (const key of ['bogus', typo])
        tests.push({
          what: `${where} + ${key}`,
          value: withValueAt(base, path, { ...(value as object), [key]: 1 }),
        });
    }
  }
  tests.push({ what: 'the root + bogus', value: { ...base, bogus: 1 } });
  for (const status of ['done', 'Completed'])
    tests.push({ what: `status ${status}`, value: withValueAt(base, ['expect', 'status'], status) });
  tests.push({ what: 'a list', value: [base] });
  tests.push({ what: 'text', value: 'steps' });
  return tests;
}

/** `steps.qa[0]` and a key under it → `steps.qa[0].key`. */
function joined(where: string, key: string): string {
  return where ? `${where}.${key}` : key;
}

/** Where PB800 finds a problem, from its messages (an unknown key counts at the key's own place). */
function checkPlaces(text: string): string[] {
  const analysis = analyzeTestFile('playbooks/pr.test.yml', text, playbook);
  const found: string[] = [];
  for (const d of analysis.diagnostics) {
    if (d.code !== 'PB800') continue;
    const unknown =
      /^unknown key "(.*?)" in (?:a playbook test|(.*?));/.exec(d.message) ??
      /^key "(.*?)" in (.*?) must be /.exec(d.message);
    const missing = /^(?:the test|(.*?)) is missing the required key/.exec(d.message);
    const wrong = /^(?:a playbook test|(.*?)) must be /.exec(d.message);
    if (unknown) found.push(joined(unknown[2] ?? '', unknown[1]!));
    else if (missing) found.push(missing[1] ?? '');
    else if (wrong) found.push(wrong[1] ?? '');
    else throw new Error(`a PB800 message this test cannot place: ${d.message}`);
  }
  return found.sort();
}

/** Where the runtime's readers find a problem with the shape (not with a name), from their messages. */
function runtimePlaces(value: unknown): string[] {
  const { errors } = readScenario(value, ir, 'test');
  const record = value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  errors.push(...readExpectation((record as { expect?: unknown }).expect, ir).errors);
  return placesOfErrors(errors);
}

function placesOfErrors(errors: readonly string[]): string[] {
  const found: string[] = [];
  for (const error of errors) {
    const match = /^(?:(.*?): )?((?:unknown )?key "(.*?)"|missing the required key|must be )/.exec(error);
    if (!match) continue; // a name's problem (PB803–PB806's rules)
    found.push(match[3] === undefined ? (match[1] ?? '') : joined(match[1] ?? '', match[3]));
  }
  return found.map((p) => (p === 'a playbook test' ? '' : p)).sort();
}

describe('the shape of a scenario and a playbook test: one set of rules for check and the runtime', () => {
  const tests = malformedTests();

  it('finds the problems of each malformed test at the same places, in check (PB800) and in the runtime', () => {
    let malformed = 0;
    for (const test of tests) {
      const text = stringify(test.value);
      const parsed = parseYaml(text);
      if ('error' in parsed) throw new Error(parsed.error);
      const fromCheck = checkPlaces(text);
      expect({ test: test.what, places: runtimePlaces(parsed.value) }).toEqual({
        test: test.what,
        places: fromCheck,
      });
      if (fromCheck.length) malformed++;
    }
    // (most mutations are mistakes; the few that are not, such as a summary replaced by "done", agree too)
    expect(malformed).toBeGreaterThan(300);
  });

  it('finds nothing wrong with the valid test it mutates', () => {
    const text = stringify(baseTest());
    expect(checkPlaces(text)).toEqual([]);
    expect(runtimePlaces(parse(text))).toEqual([]);
  });

  it('reads a scenario for run --scenario as a test without name and expect', () => {
    for (const test of tests) {
      const value = test.value as Record<string, unknown>;
      if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
      const { name: _name, expect: _expect, ...scenario } = value;
      const asScenario = placesOfErrors(readScenario(scenario, ir, 'scenario').errors);
      const asTest = checkPlaces(stringify(scenario));
      expect({ test: test.what, places: asScenario }).toEqual({ test: test.what, places: asTest });
    }
    expect(readScenario(baseTest(), ir, 'scenario').errors).toEqual([
      'unknown key "name" (expected $schema, inputs, steps, after, gates)',
      'unknown key "expect" (expected $schema, inputs, steps, after, gates)',
    ]);
  });

  it('words the problems for the CLI with their place', () => {
    const { errors } = readScenario(
      { steps: { qa: [{ outcome: 5 }], plan: 'done' }, gates: { ship: [{ comment: 'x' }] } },
      ir,
    );
    expect(errors).toEqual([
      'steps.qa[0].outcome: must be text, not 5',
      'steps.plan: must be a mapping or a list, not "done"',
      'gates.ship[0]: missing the required key "choice"',
    ]);
    expect(
      readExpectation({ status: 'done', steps: { qa: { attempts: -1 } }, loops: { 'qa.fail': 'x' } }, ir)
        .errors,
    ).toEqual([
      'expect.status: must be one of running, paused, completed, failed, canceled, not "done"',
      'expect.steps.qa.attempts: must be at least 0, not -1',
      'expect.loops.qa.fail: must be a whole number, not "x"',
    ]);
    expect(readExpectation(null, ir).errors).toEqual(['expect: must be a mapping, not null']);
    expect(readExpectation({ loops: { qa: 1, 'qa.fail': 1 } }, ir).errors).toEqual([
      `expect.loops: key "qa" must be STEP.OUTCOME (or STEP.CHOICE for a gate's choice)`,
    ]);
  });

  it('says in check where a loop counter is not STEP.OUTCOME, on the key, once', () => {
    const text = 'inputs: { task: x }\nexpect:\n  loops: { qa: 1, .fail: 2, qa.fail: -1 }\n';
    const found = analyzeTestFile('playbooks/pr.test.yml', text, playbook).diagnostics.map(
      (d) => `${d.code} ${text.slice(d.range.start, d.range.end)}: ${d.message}`,
    );
    expect(found).toEqual([
      `PB800 qa: key "qa" in expect.loops must be STEP.OUTCOME (or STEP.CHOICE for a gate's choice)`,
      `PB800 .fail: key ".fail" in expect.loops must be STEP.OUTCOME (or STEP.CHOICE for a gate's choice)`,
      'PB800 -1: expect.loops.qa.fail must be at least 0, not -1',
    ]);
  });
});
