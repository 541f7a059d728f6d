import { describe, expect, it } from 'vitest';
import type { Backend, BackendContext, BackendEffect } from '../../src/driver/backend.js';
import {
  AFTER_PREFIX,
  createRun,
  generatedOutputs,
  prepareInputs,
  stepRun,
  vecToArray,
} from '@kairoku-playbook/machine';
import { LiveRun } from '../../src/host/live-run.js';
import { compileFile, playbook } from '../helpers.js';
import type { Ir } from '@kairoku-playbook/compiler';

/** Agents and checks that answer on a later turn of the event loop, as a daemon's would. */
class LaterBackend implements Backend {
  readonly name = 'later';
  readonly stopped: string[] = [];
  /** steps whose agents never report */
  constructor(private readonly silent: Set<string> = new Set()) {}
  perform(effect: BackendEffect, context: BackendContext): void {
    if (effect.type === 'stop-agent') this.stopped.push(`${effect.step}#${effect.attempt}`);
    if (effect.type !== 'start-agent' && effect.type !== 'start-check') return;
    const { step, attempt } = effect;
    setTimeout(() => {
      context.emit({ type: 'step-started', step, attempt, agent: `later:${step}:${attempt}` });
      if (this.silent.has(step)) return;
      const { ir: playbook } = context.state();
      const ir = step.startsWith(AFTER_PREFIX)
        ? playbook.after.find((a) => a.name === step.slice(AFTER_PREFIX.length))!
        : playbook.steps.find((s) => s.name === step)!;
      const outcome = ir.kind === 'check' ? 'pass' : ir.outcomes[0]!.name;
      context.emit({ type: 'report', step, attempt, outcome, outputs: generatedOutputs(ir, outcome) });
    }, 1);
  }
  agentExists(): boolean {
    return true;
  }
}

function newRun(ir: Ir, inputs: Record<string, unknown> = {}) {
  const prepared = prepareInputs(ir, inputs);
  if (!prepared.ok) throw new Error(prepared.errors.join('; '));
  return createRun(ir, { id: 'live-1', inputs: prepared.inputs, now: Date.now() });
}

describe('a live run', () => {
  it('runs pr.yml to its end on a backend that answers later, asking its gate without blocking', async () => {
    const ir = compileFile('playbooks/pr.yml');
    const asked: string[] = [];
    let saves = 0;
    const live = new LiveRun({
      backend: new LaterBackend(),
      state: newRun(ir, { task: 'Add a flag' }),
      persist: () => saves++,
      askGate: async (gate) => {
        asked.push(gate.step);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { choice: gate.choices[0]!.name };
      },
    });
    expect(live.begin()).toBeUndefined();
    const end = await live.done;
    expect(end.status).toBe('completed');
    expect(asked.length).toBeGreaterThan(0);
    expect(saves).toBeGreaterThan(3);
  });

  it('times out a step whose agent never reports, from its timer', async () => {
    const ir = playbook(`\n  slow: { role: implementer, prompt: S, timeout: 10m }\n`);
    let now = Date.now();
    let tick: () => void = () => undefined;
    const backend = new LaterBackend(new Set(['slow']));
    const live = new LiveRun({
      backend,
      state: newRun(ir),
      clock: () => now,
      timers: {
        setInterval: ((fn: () => void) => {
          tick = fn;
          return { unref() {} };
        }) as unknown as typeof setInterval,
        clearInterval: (() => undefined) as typeof clearInterval,
      },
    });
    live.begin();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stepRun(live.state, 'slow')!.status).toBe('running');
    tick();
    expect(stepRun(live.state, 'slow')!.status).toBe('running');
    now += 11 * 60_000;
    tick();
    const end = await live.done;
    expect(end.status).toBe('failed');
    expect(end.reason).toContain('timeout');
    expect(backend.stopped).toEqual(['slow#1']);
  });

  it('never decides a gate nobody can decide: the run waits at it, and done says so', async () => {
    const ir = playbook(`\n  ok: { gate: { title: Go? } }\n`);
    const live = new LiveRun({ backend: new LaterBackend(), state: newRun(ir) });
    live.begin();
    const end = await live.done;
    expect(end.status).toBe('running');
    expect(live.waiting).toEqual(['ok']);
    expect(live.settled).toBe(end);
    expect(vecToArray(end.steps).find((s) => s.name === 'ok')?.status).toBe('waiting');
  });

  it('takes decideGate first; a refused decision leaves the gate waiting', async () => {
    const ir = playbook(`\n  ok: { gate: { title: Go? } }\n`);
    const decided = new LiveRun({
      backend: new LaterBackend(),
      state: newRun(ir),
      decideGate: () => ({ choice: 'approve' }),
    });
    decided.begin();
    expect(decided.settled?.status).toBe('completed');
    const refused = new LiveRun({
      backend: new LaterBackend(),
      state: newRun(ir),
      decideGate: () => ({ choice: 'maybe' }),
    });
    refused.begin();
    expect(refused.settled?.status).toBe('running');
    expect(refused.waiting).toEqual(['ok']);
    expect(refused.refusals.map((r) => r.code)).toContain('unknown-choice');
  });

  it('a gate left open at end of input waits; a gate closed by a cancel stops its question', async () => {
    const ir = playbook(`\n  ok: { gate: { title: Go? } }\n`);
    const live = new LiveRun({
      backend: new LaterBackend(),
      state: newRun(ir),
      askGate: async () => undefined,
    });
    live.begin();
    expect((await live.done).status).toBe('running');
    expect(live.waiting).toEqual(['ok']);

    let aborted = false;
    const waiting = new LiveRun({
      backend: new LaterBackend(),
      state: newRun(ir),
      askGate: (_gate, _state, signal) =>
        new Promise((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve({ choice: 'approve' });
          });
        }),
    });
    waiting.begin();
    waiting.cancel('operator pressed Ctrl-C');
    const end = await waiting.done;
    expect(end.status).toBe('canceled');
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(aborted).toBe(true);
    // The answer that came after the gate closed changed nothing.
    expect(vecToArray(end.history).some((h) => h.kind === 'gate-decided')).toBe(false);
  });
});
