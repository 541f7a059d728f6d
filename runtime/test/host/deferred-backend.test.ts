import { describe, expect, it } from 'vitest';
import type { Backend, BackendContext, BackendEffect } from '../../src/driver/backend.js';
import type { RunEvent } from '@kairoku-playbook/machine';
import { DeferredBackend } from '../../src/host/deferred-backend.js';

/** A context that records what the backend fed back. */
function recorder(): { context: BackendContext; emitted: RunEvent[] } {
  const emitted: RunEvent[] = [];
  const context = {
    emit: (event: RunEvent) => emitted.push(event),
    submit: (event: RunEvent) => {
      emitted.push(event);
      return undefined;
    },
    refusalOf: () => undefined,
    state: () => {
      throw new Error('not needed');
    },
  } as unknown as BackendContext;
  return { context, emitted };
}

const start = (step: string): BackendEffect =>
  ({ type: 'start-agent', step, attempt: 1 }) as unknown as BackendEffect;

describe('DeferredBackend', () => {
  it('holds effects until the backend is connected, then performs them in order', async () => {
    const performed: string[] = [];
    let connect: (backend: Backend) => void = () => undefined;
    const inner: Backend = {
      name: 'paseo',
      perform: (effect) => performed.push(`${effect.type} ${'step' in effect ? effect.step : ''}`),
      agentExists: (agent) => agent === 'a1',
    };
    const deferred = new DeferredBackend('paseo', () => new Promise((resolve) => (connect = resolve)));
    const { context } = recorder();
    deferred.perform(start('plan'), context);
    deferred.perform(start('build'), context);
    expect(performed).toEqual([]);
    expect(deferred.agentExists('a1')).toBe(false);
    connect(inner);
    await new Promise((resolve) => setImmediate(resolve));
    expect(performed).toEqual(['start-agent plan', 'start-agent build']);
    deferred.perform(start('ship'), context);
    expect(performed).toHaveLength(3);
    expect(deferred.agentExists('a1')).toBe(true);
  });

  it('loses the agents it was asked to start when the backend cannot be reached, saying why', async () => {
    const deferred = new DeferredBackend('paseo', () => Promise.reject(new Error('connection refused')));
    const { context, emitted } = recorder();
    deferred.perform(start('plan'), context);
    await new Promise((resolve) => setImmediate(resolve));
    deferred.perform(start('build'), context);
    expect(emitted).toEqual([
      {
        type: 'agent-lost',
        step: 'plan',
        attempt: 1,
        reason: 'the paseo backend could not be reached: connection refused',
      },
      {
        type: 'agent-lost',
        step: 'build',
        attempt: 1,
        reason: 'the paseo backend could not be reached: connection refused',
      },
    ]);
    await deferred.close();
  });
});
