/**
 * PB700 (the compiler's approval dominance, a linear pass over the needs graph) and `explore` (every run,
 * with THE transition function) agree: for every sample, every ok fixture and a few hundred random small
 * playbooks, a step or after-task gets PB700 exactly when some reachable run starts it with no approving
 * gate standing (a gate completed by a choice that is `next`).
 *
 * To compare verdicts on every step that may run a command, the playbooks are checked under a policy that
 * gates every command (`strict: true`, and a pattern for every first character): then PB700's verdict is
 * its path analysis alone.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { compilePlaybook, validateWorkspace } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { Model } from '../src/explore/model.js';
import type { RunState } from '../src/core/state.js';
import { isEnded } from '../src/core/state.js';
import { repo } from './helpers.js';
import { prng } from '../../test/support/random.js';

const FIRST_CHARACTERS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-~"\'$'];
const GATE_EVERYTHING = `strict: true\ngated:\n${FIRST_CHARACTERS.map((c) => `  - ${JSON.stringify(`${c}*`)}`).join('\n')}\n`;

/** `# playbook-ignore …` comments removed (the samples silence PB700 where it is safe; here it must show). */
function unsuppressed(text: string): string {
  return text.replace(/(^|[ \t])#[ \t]*playbook-ignore\b[^\n\r]*/gm, '$1');
}

/** The steps and after-tasks PB700 reports (`after.NAME` for an after-task), under the policy that gates everything. */
function pb700(file: string, text: string): Set<string> {
  const { diagnostics } = validateWorkspace([
    { file: '.kairoku/policy.yml', text: GATE_EVERYTHING },
    { file, text: unsuppressed(text) },
  ]);
  expect(diagnostics.filter((d) => d.file === '.kairoku/policy.yml')).toEqual([]);
  const found = new Set<string>();
  for (const d of diagnostics) {
    if (d.code !== 'PB700') continue;
    const match = /^(step|after-task) "([^"]+)"/.exec(d.message)!;
    found.add(match[1] === 'step' ? match[2]! : `after.${match[2]!}`);
  }
  return found;
}

/** Units that may run a command at all: check steps, and agent steps whose role may run. */
function mayRun(ir: Ir): Set<string> {
  const runs = (unit: { kind: string; role: string | null }) => {
    if (unit.kind === 'check') return true;
    if (unit.kind !== 'agent') return false;
    const run = ir.roles.find((r) => r.name === unit.role)?.tools.run;
    return run === true || (Array.isArray(run) && run.length > 0);
  };
  return new Set([
    ...ir.steps.filter(runs).map((s) => s.name),
    ...ir.after.filter(runs).map((a) => `after.${a.name}`),
  ]);
}

/**
 * What `explore`'s model finds: the units some reachable run starts with no approving gate standing. An
 * after-task starts after its run ended with a status in its `on` (manual ones are offered then). The run's
 * own timeout and cancel, which explore does not follow (they only end a run), fail a run before any gate:
 * so an after-task that may start after a failed run is unapproved, as SPEC §4 says.
 */
function explored(ir: Ir): { unapproved: Set<string>; started: Set<string>; complete: boolean } {
  const model = new Model(ir);
  const approving = ir.steps.map((step) =>
    step.kind === 'gate'
      ? new Set(step.outcomes.filter((o) => o.transition.kind === 'next').map((o) => o.name))
      : undefined,
  );
  const approved = (state: RunState): string => {
    let mark = '';
    ir.steps.forEach((_, i) => {
      const choices = approving[i];
      if (!choices) return;
      const run = model.runOf(state, i);
      mark += run.status === 'completed' && run.outcome !== null && choices.has(run.outcome) ? '1' : '0';
    });
    return mark;
  };
  const unapproved = new Set<string>();
  const started = new Set<string>(ir.after.map((task) => `after.${task.name}`));
  for (const task of ir.after) if (task.on.includes('failed')) unapproved.add(`after.${task.name}`);
  const seen = new Set<string>();
  const queue: { state: RunState; variant: number }[] = [];
  const visit = (state: RunState, variant: number, started_: readonly number[]) => {
    const mark = approved(state);
    for (const unit of started_) if (!model.isAfter(unit)) started.add(model.nameOf(unit));
    if (!mark.includes('1')) {
      for (const unit of started_) if (!model.isAfter(unit)) unapproved.add(model.nameOf(unit));
      if (state.status === 'completed')
        for (const task of ir.after) if (task.on.includes('completed')) unapproved.add(`after.${task.name}`);
    }
    const key = `${model.key(state, variant)}|${mark}`;
    if (seen.has(key)) return;
    seen.add(key);
    queue.push({ state, variant });
  };
  model.inputs.forEach((_, variant) => {
    // eslint-disable-next-line prefer-spread -- Model.apply (a move), not Function.prototype.apply
    const applied = model.apply(undefined, { kind: 'start', variant });
    if (!('error' in applied)) visit(applied.state, variant, applied.started);
  });
  const budget = 200_000;
  for (let head = 0; head < queue.length; head++) {
    if (seen.size > budget) return { unapproved, started, complete: false };
    const { state, variant } = queue[head]!;
    if (isEnded(state.status) && !state.after.some((t) => t.status === 'running')) continue;
    for (const move of model.moves(state)) {
      const applied = model.apply(state, move);
      if ('error' in applied) continue;
      visit(applied.state, variant, applied.started);
    }
  }
  return { unapproved, started, complete: true };
}

/** Checks the verdicts agree; returns how many units were compared, and how many of them PB700 reports. */
function agree(file: string, text: string): { compared: number; reported: number } {
  const { ir } = compilePlaybook(file, text);
  if (!ir) throw new Error(`${file} does not compile`);
  const { unapproved, started, complete } = explored(ir);
  expect(complete, `${file}: explored within the budget`).toBe(true);
  // A step explore never starts is one whose `when` no value of its small domains makes true (a
  // `startsWith` on a string with a `pattern`): explore says nothing of its gates there. PB700 reads no
  // values: it takes each `when` as able to be true.
  const runs = new Set([...mayRun(ir)].filter((name) => started.has(name)));
  const found = new Set([...pb700(file, text)].filter((name) => runs.has(name)));
  const fromExplore = [...unapproved].filter((name) => runs.has(name)).sort();
  expect([...found].sort(), `${file}: PB700 against explore`).toEqual(fromExplore);
  return { compared: runs.size, reported: found.size };
}

function yamlFilesUnder(folder: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(folder).sort()) {
    const path = `${folder}/${name}`;
    if (statSync(path).isDirectory()) found.push(...yamlFilesUnder(path));
    else if (/\.ya?ml$/.test(name) && !/\.test\.ya?ml$/.test(name)) found.push(path);
  }
  return found;
}

const samples = [...yamlFilesUnder(`${repo}playbooks`), ...yamlFilesUnder(`${repo}test/fixtures/ok`)]
  .map((path) => path.slice(repo.length))
  .filter((file) => compilePlaybook(file, readFileSync(`${repo}${file}`, 'utf8')).ir !== undefined);

describe('PB700 agrees with explore', () => {
  it.each(samples)('%s', { timeout: 120_000 }, (file) => {
    agree(file, readFileSync(`${repo}${file}`, 'utf8'));
  });

  it('on 300 random small playbooks', { timeout: 120_000 }, () => {
    let compared = 0;
    let reported = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const text = randomPlaybook(seed);
      try {
        const counts = agree(`random-${seed}.yml`, text);
        compared += counts.compared;
        reported += counts.reported;
      } catch (error) {
        throw new Error(`seed ${seed}:\n${text}\n${String(error)}`, { cause: error });
      }
    }
    // Both verdicts are common: the random graphs are neither all gated nor all open.
    expect(reported).toBeGreaterThan(compared / 10);
    expect(compared - reported).toBeGreaterThan(compared / 10);
  });
});

/**
 * 2 to 6 steps (checks that deploy, agents, gates), random needs, `when`s on inputs of their own (so each
 * can be true and false), gate choices that approve, fail, end or loop (exhausted into next or fail),
 * check outcomes that go on, end, fail or loop; an after-task on completed, failed or both.
 */
function randomPlaybook(seed: number): string {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const count = 2 + Math.floor(random() * 5);
  const inputs: string[] = [];
  const steps: string[] = [];
  const ancestors: Set<number>[] = [];
  for (let i = 0; i < count; i++) {
    const needs = [...Array(i).keys()].filter(() => random() < 0.45);
    const mine = new Set<number>();
    for (const need of needs) {
      mine.add(need);
      for (const a of ancestors[need]!) mine.add(a);
    }
    ancestors.push(mine);
    const loopTargets = [i, ...mine];
    const lines = [`  s${i}:`];
    if (needs.length) lines.push(`    needs: [${needs.map((n) => `s${n}`).join(', ')}]`);
    if (random() < 0.3) {
      inputs.push(`w${i}`);
      lines.push(`    when: inputs.w${i}`);
    }
    const kind = pick(['check', 'check', 'gate', 'gate', 'agent']);
    const loop = () => `{ loop: s${pick(loopTargets)}, max: 1, exhausted: ${pick(['next', 'fail', 'end'])} }`;
    if (kind === 'gate') {
      lines.push('    gate:', `      title: Gate ${i}`, '      choices:');
      lines.push(`        approve: ${random() < 0.85 ? 'next' : 'end'}`);
      lines.push(`        reject: ${pick(['fail', 'end'])}`);
      if (random() < 0.4) lines.push(`        revise: ${loop()}`);
    } else if (kind === 'check') {
      lines.push(`    run: deploy ${i}`, '    outcomes:');
      lines.push(`      pass: ${pick(['next', 'next', 'next', 'end'])}`);
      lines.push(`      fail: ${random() < 0.4 ? loop() : pick(['fail', 'retry'])}`);
      if (random() < 0.3) lines.push('    retries: 1');
    } else {
      lines.push('    role: implementer', `    prompt: Step ${i}`);
    }
    steps.push(lines.join('\n'));
  }
  const on = pick(['[completed]', '[failed]', '[completed, failed]']);
  const inputBlock = inputs.length
    ? `inputs:\n${inputs.map((name) => `  ${name}: { type: boolean, default: false }`).join('\n')}\n`
    : '';
  return `version: 1\nid: random\ntitle: Random\n${inputBlock}steps:\n${steps.join('\n')}\nafter:\n  report:\n    on: ${on}\n    run: deploy report\n`;
}
