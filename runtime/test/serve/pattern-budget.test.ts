/**
 * A playbook's input pattern never runs unbounded on serve's event loop (issue 27 item 7, serve's half;
 * PB108 refuses the exponential shapes at check time): a start's patterns run in a worker within a budget,
 * and a value its pattern takes long on is refused `pattern-too-slow` while serve goes on answering.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import { slowPattern } from '../../src/serve/pattern-budget.js';
import { prWorkspace, serveOnSim } from '../../../test/kit/index.js';

// Polynomial, not exponential: not a PB108 shape, but quadratic on a long run of digits.
const DIGITS = `version: 1
id: digits
title: Digits
inputs:
  code:
    type: string
    pattern: '^\\d+\\d+x$'
steps:
  say:
    role: implementer
    prompt: Say \${{ inputs.code }}.
`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the patterns of a start', () => {
  const ir = compilePlaybook('digits.yml', DIGITS).ir!;

  it('are run in a worker: a quick one passes, a slow one is named', async () => {
    expect(ir).toBeDefined();
    expect(await slowPattern(ir, { code: '123x' })).toBeUndefined();
    expect(await slowPattern(ir, { code: '12' })).toBeUndefined(); // no match: the schema check says so
    expect(await slowPattern(ir, {})).toBeUndefined();
    expect(await slowPattern(ir, { code: '1'.repeat(60_000) })).toBe('code');
  });

  it('a slow one is refused through serve, which answers other requests meanwhile', async () => {
    const ws = prWorkspace();
    cleanups.push(ws.cleanup);
    writeFileSync(join(ws.root, 'playbooks', 'digits.yml'), DIGITS);
    const { api, close } = await serveOnSim(ws.root, ws.home);
    cleanups.push(close);
    const order: string[] = [];
    const start = api('/api/v1/runs', {
      body: { playbook: 'playbooks/digits.yml', inputs: { code: '1'.repeat(60_000) } },
    }).then((answer) => (order.push('start'), answer));
    // Sent once the start is being checked: answered before it, as the loop is free.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const list = api('/api/v1/runs').then((answer) => (order.push('list'), answer));
    const [refused, listed] = await Promise.all([start, list]);
    expect(refused.status).toBe(422);
    expect(refused.body.refusal).toMatchObject({ code: 'pattern-too-slow', field: '/inputs/code' });
    expect(listed.status).toBe(200);
    expect(listed.body.runs).toEqual([]);
    expect(order).toEqual(['list', 'start']);
    // A value the pattern takes no time on starts as ever.
    const ok = await api('/api/v1/runs', {
      body: { playbook: 'playbooks/digits.yml', inputs: { code: '42x' } },
    });
    expect(ok.status).toBe(201);
  });
});
