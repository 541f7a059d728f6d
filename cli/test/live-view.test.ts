import { readFileSync } from 'node:fs';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { readScenario, runSim, stepRun } from '@kairoku-playbook/runtime';
import type { RunState } from '@kairoku-playbook/runtime';
import { describe, expect, it } from 'vitest';
import { LiveView, renderRunView } from '../src/live-view.js';

const repo = new URL('../../', import.meta.url).pathname;
const ESC = '\x1b';
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
const UP = new RegExp(`${ESC}\\[(\\d+)F`, 'g');

function pr(): Ir {
  const { ir } = compilePlaybook('playbooks/pr.yml', readFileSync(`${repo}playbooks/pr.yml`, 'utf8'));
  if (!ir) throw new Error('playbooks/pr.yml has errors');
  return ir;
}

/** Every state of a sim run of pr.yml, one second apart. */
function states(scenario: unknown): RunState[] {
  const ir = pr();
  let t = Date.parse('2025-01-01T00:00:00Z');
  const seen: RunState[] = [];
  const result = runSim({
    ir,
    scenario: readScenario({ inputs: { task: 'x' }, ...(scenario as object) }, ir).scenario,
    id: 'pr-3a9c1f',
    clock: () => (t += 1000),
    onTransition: (_before, after) => void seen.push(after),
  });
  if (!result.ok) throw new Error(result.inputErrors.join('\n'));
  seen.push(result.state);
  return seen;
}

const status = (state: RunState, step: string) => stepRun(state, step)?.status;
const opts = { frame: 0, width: 80, color: false };

describe('renderRunView', () => {
  const looping = states({ steps: { qa: [{ outcome: 'fail' }, { outcome: 'pass' }] } });

  it('draws the start of a run: every step pending', () => {
    expect(renderRunView(looping[0]!, opts)).toMatchSnapshot();
  });

  it('draws qa looping back to implement: the spinner, the attempt and the loop count', () => {
    const mid = looping.find((s) => status(s, 'implement') === 'running' && s.loops['qa.fail'] === 1)!;
    const lines = renderRunView(mid, { ...opts, frame: 2, now: Date.parse(mid.updatedAt) });
    expect(lines).toMatchSnapshot();
    expect(lines.join('\n')).toContain('⠹ implement #2 ⟲1/3');
    expect(renderRunView(mid, { ...opts, color: true, frame: 2 })).toMatchSnapshot();
  });

  it('draws a waiting gate, amber with colour', () => {
    const waiting = looping.find((s) => status(s, 'ship') === 'waiting')!;
    const lines = renderRunView(waiting, opts);
    expect(lines).toMatchSnapshot();
    expect(lines.join('\n')).toContain('? ship');
    const coloured = renderRunView(waiting, { ...opts, color: true });
    expect(coloured.join('\n')).toContain('\x1b[33m? ship\x1b[39m');
    expect(coloured).toMatchSnapshot();
  });

  it('draws a completed run with its after-tasks and elapsed time', () => {
    const end = looping.at(-1)!;
    expect(end.status).toBe('completed');
    const lines = renderRunView(end, opts);
    expect(lines).toMatchSnapshot();
    expect(lines[0]).toMatch(/ · completed · \d+s$/);
    expect(lines).toContain('  after the run');
    expect(renderRunView(end, { ...opts, color: true })).toMatchSnapshot();
  });

  it('draws a failed run: the failed step red', () => {
    const failed = states({ steps: { qa: { outcome: 'fail' } } }).at(-1)!;
    expect(failed.status).toBe('failed');
    expect(renderRunView(failed, opts)).toMatchSnapshot();
    expect(renderRunView(failed, { ...opts, color: true })).toMatchSnapshot();
  });

  it('cuts lines to the width, colour or not', () => {
    const mid = looping.find((s) => status(s, 'implement') === 'running' && s.loops['qa.fail'] === 1)!;
    const strip = (line: string) => line.replace(SGR, '');
    for (const color of [false, true]) {
      const lines = renderRunView(mid, { ...opts, width: 16, color });
      for (const line of lines) expect([...strip(line)].length).toBeLessThanOrEqual(16);
      expect(strip(lines[0]!)).toBe('Implement, revi…');
      expect(lines.map(strip)).toContain('  ⠋ implement #…');
    }
  });

  it('puts parallel steps side by side, on the row below their deepest need', () => {
    const { ir } = compilePlaybook(
      'fan.playbook.yml',
      [
        'version: 1',
        'id: fan',
        'title: Fan out',
        'steps:',
        '  plan: { role: planner, prompt: P }',
        '  api: { needs: [plan], role: implementer, prompt: A }',
        '  ui: { needs: [plan], role: implementer, prompt: U }',
        '  docs: { needs: [plan], role: implementer, prompt: D }',
        '  land: { needs: [api, ui, docs], role: implementer, prompt: L }',
      ].join('\n'),
    );
    let t = 0;
    const seen: RunState[] = [];
    runSim({
      ir: ir!,
      scenario: readScenario({}, ir!).scenario,
      id: 'fan-000001',
      clock: () => (t += 1000),
      onTransition: (_b, after) => void seen.push(after),
    });
    const mid = seen.find((s) => status(s, 'ui') === 'running')!;
    const lines = renderRunView(mid, opts);
    expect(lines.slice(1, -1)).toEqual(['  ✓ plan', '  ⠋ api   ⠋ ui   · docs', '  · land']);
    // Narrower than the row: it wraps, and every step shows.
    expect(renderRunView(mid, { ...opts, width: 18 }).slice(1, -1)).toEqual([
      '  ✓ plan',
      '  ⠋ api   ⠋ ui',
      '  · docs',
      '  · land',
    ]);
  });

  it('wraps a row of four parallel steps at 80 columns rather than cut the fourth', () => {
    const names = ['backend_service', 'frontend_widgets', 'documentation_pages', 'integration_tests'];
    const { ir } = compilePlaybook(
      'wide.playbook.yml',
      [
        'version: 1',
        'id: wide',
        'title: Wide',
        'steps:',
        '  plan: { role: planner, prompt: P }',
        ...names.map((n) => `  ${n}: { needs: [plan], role: implementer, prompt: X }`),
      ].join('\n'),
    );
    const seen: RunState[] = [];
    runSim({
      ir: ir!,
      scenario: readScenario({}, ir!).scenario,
      id: 'wide-000001',
      clock: () => 0,
      onTransition: (_b, after) => void seen.push(after),
    });
    const lines = renderRunView(seen[0]!, opts);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const graph = lines.slice(1, -1).join('\n');
    for (const name of names) expect(graph).toContain(`· ${name}`);
    expect(graph).not.toContain('…');
    expect(lines.slice(1, -1)).toEqual([
      '  · plan',
      '  · backend_service   · frontend_widgets   · documentation_pages',
      '  · integration_tests',
    ]);
  });

  it('renders the title from the inputs; a secret input shows masked', () => {
    const { ir } = compilePlaybook(
      'fix.playbook.yml',
      [
        'version: 1',
        'id: fix',
        'title: Fix issue ${{ inputs.issue }}',
        'inputs:',
        '  issue: { type: integer }',
        '  token: { type: string, secret: true }',
        'steps:',
        '  fix: { role: implementer, prompt: "fix ${{ inputs.issue }}" }',
      ].join('\n'),
    );
    const result = runSim({
      ir: ir!,
      scenario: readScenario({}, ir!).scenario,
      inputs: { issue: 42, token: 'sk-title-secret-991' },
      id: 'fix-000001',
      clock: () => 0,
    });
    if (!result.ok) throw new Error(result.inputErrors.join('; '));
    expect(renderRunView(result.state, opts)[0]).toMatch(/^Fix issue 42 · fix-000001 · sim · completed/);
    // The checker refuses a secret in a title (PB407); were one there, the run holds it masked only.
    const header = renderRunView({ ...result.state, title: 'Key ${{ inputs.token }}' }, opts)[0]!;
    expect(header).not.toContain('sk-title-secret-991');
    expect(header).toMatch(/^Key \S+ · fix-000001/);
    expect(header).not.toContain('${{');
  });

  it('says why a run failed or was canceled, under the header', () => {
    const failed = states({
      steps: { review: { outcome: 'blocked' } },
      inputs: { task: 'x', strict: true },
    }).at(-1)!;
    expect(failed.reason).toBeTruthy();
    expect(renderRunView(failed, opts)[1]).toBe(`  ${failed.reason}`);
  });

  it('folds graph rows that do not fit the height around the first row still going', () => {
    const mid = looping.find((s) => status(s, 'implement') === 'running' && s.loops['qa.fail'] === 1)!;
    const lines = renderRunView(mid, { ...opts, height: 8 });
    expect(lines.length).toBeLessThanOrEqual(8);
    expect(lines).toMatchSnapshot();
  });
});

describe('LiveView', () => {
  const run = states({ steps: { qa: [{ outcome: 'fail' }, { outcome: 'pass' }] } });
  const fake = () => {
    const writes: string[] = [];
    return { writes, out: { write: (t: string) => void writes.push(t) } };
  };
  const ups = (text: string) => [...text.matchAll(UP)].map((m) => Number(m[1]));
  const lineCount = (text: string) => text.split('\n').length - 1;

  it('redraws every update in place: up by the previous frame, each line cleared', () => {
    const { writes, out } = fake();
    const view = new LiveView(out, { color: false, columns: () => 80 });
    for (const state of run.slice(0, 5)) view.update(state);
    view.close();
    expect(writes).toHaveLength(6);
    expect(ups(writes[0]!)).toEqual([]);
    for (let i = 1; i < writes.length; i++) expect(ups(writes[i]!)).toEqual([lineCount(writes[i - 1]!)]);
    for (const write of writes) {
      expect(
        write
          .split('\n')
          .slice(0, -1)
          .every((l) => l.replace(UP, '').startsWith('\x1b[2K')),
      ).toBe(true);
      expect(write.endsWith('\x1b[J')).toBe(true);
    }
    view.update(run[6]!);
    expect(writes).toHaveLength(6);
  });

  it('stops drawing while paused, and starts a new frame below the prompt on resume', () => {
    const { writes, out } = fake();
    const view = new LiveView(out, { color: false, columns: () => 80 });
    view.update(run[0]!);
    view.update(run[1]!);
    view.pause();
    expect(writes).toHaveLength(3);
    expect(ups(writes[2]!)).toEqual([lineCount(writes[1]!)]);
    view.update(run[2]!);
    view.update(run[3]!);
    expect(writes).toHaveLength(3);
    view.resume();
    expect(writes).toHaveLength(4);
    expect(ups(writes[3]!)).toEqual([]);
    expect(writes[3]).toContain(renderRunView(run[3]!, { frame: 3, width: 80, color: false }).at(-1));
    view.update(run[4]!);
    expect(ups(writes[4]!)).toEqual([lineCount(writes[3]!)]);
    view.close();
  });

  it('keeps the header’s elapsed time ticking above a prompt, rewriting it in place', () => {
    const { writes, out } = fake();
    let now = Date.parse(run[1]!.startedAt!);
    const view = new LiveView(out, { color: false, columns: () => 80, rows: () => 40, now: () => now });
    view.update(run[1]!);
    view.pause();
    const frame = lineCount(writes.at(-1)!);
    const prompt = view.below({
      write: (t: string) => void writes.push(t),
      ask: (_question: string) => 'approve',
    });
    prompt.write('\n? ship: Ship it?\n  choices:\n');
    prompt.ask('choice> ');
    const before = writes.length;
    view.tickHeader();
    expect(writes).toHaveLength(before); // the same second: nothing to redraw
    now += 65_000;
    view.tickHeader();
    expect(writes).toHaveLength(before + 1);
    const tick = writes.at(-1)!;
    // saved cursor, up over the frame and the four rows the prompt took, the header, cursor restored
    expect(tick.startsWith(`${ESC}7`)).toBe(true);
    expect(tick.endsWith(`${ESC}8`)).toBe(true);
    expect(ups(tick)).toEqual([frame + 4]);
    expect(tick).toContain('1m 05s');
    view.resume();
    view.close();
  });

  it('ticks the spinner while a step runs, and stops at close', async () => {
    const { writes, out } = fake();
    const view = new LiveView(out, { color: false, columns: () => 80, intervalMs: 5 });
    const running = run.find((s) => status(s, 'plan') === 'running')!;
    view.update(running);
    await new Promise((r) => setTimeout(r, 40));
    expect(writes.length).toBeGreaterThan(2);
    expect(new Set(writes.map((w) => /([⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]) plan/.exec(w)?.[1])).size).toBeGreaterThan(1);
    view.close();
    const after = writes.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(writes).toHaveLength(after);
  });
});
