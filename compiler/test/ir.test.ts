import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  analyzeFile,
  checkIr,
  compileAnalysis,
  compilePlaybook,
  regionSteps,
  serializeIr,
  validateWorkspace,
} from '../src/index.js';
import { toRanges } from '../src/ir/ranges.js';
import { MAX_IR_NESTING } from '../src/ir/check-ir.js';
import type { Ir } from '../src/index.js';

const playbooks = new URL('../../playbooks/', import.meta.url).pathname;
const samples = readdirSync(playbooks).filter((n) => /\.ya?ml$/.test(n) && !n.includes('.test.'));

function compile(name: string): Ir {
  const text = readFileSync(playbooks + name, 'utf8');
  const result = compilePlaybook(`playbooks/${name}`, text);
  expect(result.diagnostics).toEqual([]);
  return result.ir!;
}

describe('the IR', () => {
  for (const name of samples) {
    it(`${name}: is byte-identical across compilations and valid against its own schema`, () => {
      const text = readFileSync(playbooks + name, 'utf8');
      const first = serializeIr(compilePlaybook(`playbooks/${name}`, text).ir!);
      const second = serializeIr(compilePlaybook(`playbooks/${name}`, text).ir!);
      expect(second).toBe(first);
      const checked = checkIr(JSON.parse(first));
      expect(checked.ok ? [] : checked.errors).toEqual([]);
    });
  }

  it('compileAnalysis emits from an analysis at hand what compilePlaybook gives, an edited one included', () => {
    for (const name of samples) {
      const file = `playbooks/${name}`;
      const text = readFileSync(playbooks + name, 'utf8');
      expect(compileAnalysis(analyzeFile(file, text)), name).toEqual(compilePlaybook(file, text));
      // an edit inside a prompt is analysed incrementally from the previous analysis
      const at = text.indexOf('prompt: ') + 'prompt: '.length;
      if (at < 'prompt: '.length) continue;
      const edited = `${text.slice(0, at)}Now. ${text.slice(at)}`;
      const previous = validateWorkspace([{ file, text }]).analyses;
      const analysis = validateWorkspace([{ file, text: edited }], previous).analyses.get(file)!;
      expect(compileAnalysis(analysis), `${name}, edited`).toEqual(compilePlaybook(file, edited));
    }
    const broken = compileAnalysis(analyzeFile('broken.yml', 'version: 1\ntitle: x\nsteps: {}\n'));
    expect(broken.ir).toBeUndefined();
    expect(broken.diagnostics.length).toBeGreaterThan(0);
  });

  it('orders steps topologically with index-based needs and lays out rows by deepest need', () => {
    const ir = compile('pr.yml');
    expect(ir.steps.map((s) => s.name)).toEqual(['plan', 'implement', 'qa', 'review', 'ship']);
    for (const step of ir.steps) for (const need of step.needs) expect(need).toBeLessThan(step.index);
    expect(ir.steps.map((s) => s.layout.row)).toEqual([0, 1, 2, 3, 4]);
  });

  it('resolves loops to target indices with their reset region and counter key', () => {
    const ir = compile('pr.yml');
    const qa = ir.steps.find((s) => s.name === 'qa')!;
    const fail = qa.outcomes.find((o) => o.name === 'fail')!.transition;
    expect(fail).toMatchObject({
      kind: 'loop',
      target: 1,
      max: 3,
      exhausted: 'fail',
      reset: [[1, 4]],
      counter: 'qa.fail',
    });
    const review = ir.steps.find((s) => s.name === 'review')!;
    // max defaults to limits.max_loops
    expect(review.outcomes.find((o) => o.name === 'changes_requested')!.transition).toMatchObject({
      kind: 'loop',
      max: 3,
    });
  });

  it("derives each step's inputs from the references in its templates", () => {
    const ir = compile('pr.yml');
    const implement = ir.steps.find((s) => s.name === 'implement')!;
    expect(implement.inputs).toEqual([
      { from: 'steps.plan.outputs.plan', step: 0 },
      { from: 'steps.plan.outputs.files', step: 0 },
    ]);
    expect(ir.steps.find((s) => s.name === 'plan')!.inputs.map((i) => i.from)).toEqual([
      'inputs.task',
      'inputs.target',
    ]);
  });

  it('keeps source locations for steps, outcomes and template expressions', () => {
    const text = readFileSync(`${playbooks}pr.yml`, 'utf8');
    const ir = compile('pr.yml');
    const lines = text.split('\n');
    const plan = ir.steps[0]!;
    expect(lines[plan.at[0] - 1]!.slice(plan.at[1] - 1)).toMatch(/^plan:/);
    const part = plan.prompt!.parts.find((p) => 'expr' in p) as { at: [number, number] };
    expect(lines[part.at[0] - 1]!.slice(part.at[1] - 1)).toMatch(/^\$\{\{ inputs\.task \}\}/);
  });

  it('makes the inputs a JSON Schema and masks nothing it should keep', () => {
    const ir = compile('pr.yml');
    expect(ir.inputSchema).toMatchObject({
      type: 'object',
      required: ['task'],
      properties: {
        reviewers: { type: 'integer', minimum: 1, maximum: 3, default: 1 },
        target: { type: 'string', enum: ['main', 'develop'] },
        api_key: { type: 'string', writeOnly: true },
      },
    });
  });

  it('refuses an IR of another version with a message that says what to do', () => {
    const ir = compile('pr.yml');
    const result = checkIr({ ...ir, ir: 2 });
    expect(result).toEqual({ ok: false, errors: [expect.stringContaining('unsupported IR version 2')] });
    const broken = checkIr({ ...ir, steps: [{ name: 'x' }] });
    expect(broken.ok).toBe(false);
  });

  it('refuses a hand-made IR nested deeper than any compiled one, without overflowing the stack', () => {
    const ir = compile('pr.yml') as unknown as { steps: { when: unknown }[] };
    let expr: unknown = { kind: 'context', name: 'inputs' };
    for (let i = 0; i < 100_000; i++) expr = { kind: 'not', operand: expr };
    const deep = structuredClone(ir);
    deep.steps[0]!.when = { expr, at: { line: 1, column: 1, endLine: 1, endColumn: 2 } };
    expect(checkIr(deep)).toEqual({
      ok: false,
      errors: [expect.stringContaining(`nested more than ${MAX_IR_NESTING} levels deep`)],
    });
  });

  it("carries a manual after-task's `on`: which ended runs offer its Start (SPEC §3.3)", () => {
    const text = readFileSync(
      new URL('../../test/fixtures/ok/manual-after-task-on.yml', import.meta.url),
      'utf8',
    );
    const result = compilePlaybook('manual-after-task-on.yml', text);
    expect(result.diagnostics).toEqual([]);
    expect(result.ir!.after.map(({ name, trigger, on }) => ({ name, trigger, on }))).toEqual([
      { name: 'tell-the-team', trigger: 'manual', on: ['failed'] },
      { name: 'notes', trigger: 'manual', on: ['completed'] },
    ]);
  });

  it('is not produced for a playbook with errors', () => {
    const result = compilePlaybook(
      'x.yml',
      'version: 1\ntitle: x\nsteps:\n  a: { prompt: hi, role: nobody }\n',
    );
    expect(result.ir).toBeUndefined();
    expect(result.diagnostics.map((d) => d.code)).toEqual(['PB201']);
  });
});

describe('loop reset regions as ranges', () => {
  it('lists a region as ascending ranges apart, and back', () => {
    expect(toRanges([])).toEqual([]);
    expect(toRanges([0, 1, 2, 5, 7, 8])).toEqual([
      [0, 2],
      [5, 5],
      [7, 8],
    ]);
    expect(regionSteps(toRanges([0, 1, 2, 5, 7, 8]))).toEqual([0, 1, 2, 5, 7, 8]);
  });

  it('checkIr refuses a region that runs past the steps, goes backwards or misses its target', () => {
    const good = compilePlaybook(
      'r.yml',
      `version: 1
id: r
title: R
steps:
  a: { role: implementer, prompt: A }
  b: { role: implementer, prompt: B, needs: [a], outcomes: { again: { loop: a, max: 2 }, done: next } }
`,
    ).ir!;
    const withReset = (reset: unknown) => {
      const copy = structuredClone(good) as unknown as { steps: { outcomes: { transition: object }[] }[] };
      copy.steps[1]!.outcomes[0]!.transition = { ...copy.steps[1]!.outcomes[0]!.transition, reset };
      return checkIr(copy);
    };
    expect(withReset([[0, 1]]).ok).toBe(true);
    expect(withReset([[0, 1_000_000_000]])).toMatchObject({
      ok: false,
      errors: [expect.stringContaining('reset')],
    });
    expect(
      withReset([
        [1, 1],
        [0, 0],
      ]).ok,
    ).toBe(false);
    expect(withReset([[1, 1]])).toMatchObject({ ok: false, errors: [expect.stringContaining('target')] });
  });
});
