/**
 * Secret values are masked in everything that enters a run, also in a process that was never given
 * them (a restart, a step agent's own server): the run keeps keyed fingerprints of them, never the
 * values (issue 11: after `runs restart`, attempts 3–4 stored the secret in clear).
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { Driver } from '../../src/driver/driver.js';
import { HandRunner, startApp, tempDir, waitFor } from '../../../test/kit/index.js';
import {
  advance,
  createRun,
  fingerprintSecrets,
  MASK,
  prepareInputs,
  sameSecret,
  SecretMasker,
  secretPieces,
  vecToArray,
} from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { loadMaskKey } from '../../src/host/mask-key.js';
import { serializeRun } from '../../src/store/run-store.js';
import { playbook } from '../helpers.js';

const KEY = Buffer.alloc(32, 7);
const OTHER_KEY = Buffer.alloc(32, 8);
const SECRET = 'tok-Sup3rS3cret-12345';
const home = tempDir('kp-mask-');
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('SecretMasker', () => {
  it('masks a secret by its fingerprint, wherever it is in the text', () => {
    const prints = fingerprintSecrets({ token: SECRET }, KEY, 'run-1');
    const masker = new SecretMasker([], prints.token, KEY, 'run-1');
    for (const [text, masked] of [
      [SECRET, MASK],
      [`a${SECRET}b`, `a${MASK}b`],
      [`${SECRET} and ${SECRET}${SECRET}`, `${MASK} and ${MASK}${MASK}`],
      [`export TOKEN=${SECRET}\n`, `export TOKEN=${MASK}\n`],
      ['tok-Sup3rS3cret-1234', 'tok-Sup3rS3cret-1234'],
      ['nothing here', 'nothing here'],
      ['', ''],
    ])
      expect(masker.mask(text!)).toBe(masked);
  });

  it('masks each line of a secret on several lines, as check output masking does', () => {
    const key = '-----BEGIN KEY-----\n  abcdefghijklmnop\n  qrstuvwxyz012345\n-----END KEY-----';
    const prints = fingerprintSecrets({ key }, KEY, 'r');
    const masker = new SecretMasker([], prints.key, KEY, 'r');
    expect(masker.mask(`the key:\n${key}`)).toBe(`the key:\n${MASK}`);
    expect(masker.mask('line: qrstuvwxyz012345!')).toBe(`line: ${MASK}!`);
  });

  it('needs the key and the run: another key or run finds nothing', () => {
    const prints = fingerprintSecrets({ token: SECRET }, KEY, 'run-1');
    expect(new SecretMasker([], prints.token, OTHER_KEY, 'run-1').mask(SECRET)).toBe(SECRET);
    expect(new SecretMasker([], prints.token, KEY, 'run-2').mask(SECRET)).toBe(SECRET);
    expect(new SecretMasker([], prints.token).mask(SECRET)).toBe(SECRET);
  });

  it('never holds the value: the fingerprints are a length, a 32-bit hash and a MAC', () => {
    const prints = fingerprintSecrets({ token: SECRET, short: 'abc', n: 123456 }, KEY, 'run-1');
    expect(Object.keys(prints).sort()).toEqual(['n', 'token']);
    expect(JSON.stringify(prints)).not.toContain(SECRET);
    expect(prints.token![0]).toEqual({
      length: SECRET.length,
      roll: expect.any(Number),
      mac: expect.any(String),
    });
  });

  it('tells a secret given again from another value', () => {
    const prints = fingerprintSecrets({ token: SECRET }, KEY, 'run-1');
    expect(sameSecret(SECRET, prints.token, KEY, 'run-1')).toBe(true);
    expect(sameSecret('something-else', prints.token, KEY, 'run-1')).toBe(false);
    expect(sameSecret('abc', prints.token, KEY, 'run-1')).toBeUndefined();
    expect(sameSecret(SECRET, undefined, KEY, 'run-1')).toBeUndefined();
  });

  it('finds nothing in text without the secret, over many windows (no false match)', () => {
    const prints = fingerprintSecrets({ token: SECRET }, KEY, 'run-1');
    const masker = new SecretMasker([], prints.token, KEY, 'run-1');
    const text = Array.from({ length: 20_000 }, (_, i) => `w${(i * 7919) % 10007}`).join(' ');
    expect(masker.mask(text)).toBe(text);
  });

  it('orders pieces longest first and skips short and non-text values', () => {
    expect(secretPieces(['abcd', 'abcdef', 'ab', true, null, 12345, 'x\nlong line here\nyy'])).toEqual([
      'x\nlong line here\nyy',
      'long line here',
      'abcdef',
      '12345',
      'abcd',
    ]);
  });
});

const PLAYBOOK = playbook(
  `  work:
    role: implementer
    prompt: Work
    outputs: { note: string }
  ship:
    needs: [work]
    gate:
      title: Ship?
      choices:
        approve: next
        revise: { comment: required, then: { loop: work, max: 3, feedback: 'again: \${{ gate.comment }}' } }
`,
  'inputs:\n  token: { type: string, secret: true }\n',
);

/** A run started with the secret, its fingerprints made under KEY. */
function started(): RunState {
  const prepared = prepareInputs(PLAYBOOK, { token: SECRET });
  if (!prepared.ok) throw new Error(prepared.errors.join());
  const state = createRun(PLAYBOOK, { id: 'run-1', inputs: prepared.inputs, now: 0, maskKey: KEY });
  return advance(advance(state, { type: 'start' }, 0).state, { type: 'start-step', step: 'work' }, 0).state;
}

describe('the transition function in a process without the secret values', () => {
  it('scrubs reports, comments, feedback and notes by the run’s fingerprints', () => {
    // As after a restart (or in a step agent's server): the stored run, the key, no values.
    const options = { maskKey: KEY };
    let state = started();
    const leak = `the token is ${SECRET}`;
    state = advance(
      state,
      { type: 'report', step: 'work', outcome: 'done', summary: leak, outputs: { note: leak } },
      1,
      options,
    ).state;
    state = advance(state, { type: 'complete-step', step: 'work', outcome: 'done' }, 2, options).state;
    state = advance(state, { type: 'request-gate', step: 'ship' }, 3, options).state;
    state = advance(
      state,
      { type: 'gate-decided', step: 'ship', choice: 'revise', comment: leak },
      4,
      options,
    ).state;
    state = advance(state, { type: 'start-step', step: 'work', brief: leak }, 5, options).state;
    state = advance(state, { type: 'note', kind: 'backend', step: 'work', text: leak }, 6, options).state;
    state = advance(state, { type: 'nudge-step', step: 'work', message: leak }, 7, options).state;
    state = advance(state, { type: 'cancel', reason: leak }, 8, options).state;
    const file = serializeRun(state);
    expect(file).not.toContain(SECRET);
    expect(file).toContain(`the token is ${MASK}`);
    const work = vecToArray(state.steps)[0]!;
    expect(work.attempts[1]!.feedback).toBe(`again: the token is ${MASK}`);
  });

  it('without the key, a process without the values cannot scrub (what the fix is for)', () => {
    const state = advance(
      started(),
      { type: 'report', step: 'work', outcome: 'done', summary: SECRET },
      1,
    ).state;
    expect(serializeRun(state)).toContain(SECRET);
  });
});

describe('loadMaskKey', () => {
  it('makes the key once, mode 0600, and reads the same key after', () => {
    const first = loadMaskKey(home);
    expect(first).toHaveLength(32);
    expect(loadMaskKey(home).equals(first)).toBe(true);
    const path = join(home, 'secret-mask.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(first.toString('hex'));
  });
});

describe('a Kairoku run taken up by a process without the values', { timeout: 60_000 }, () => {
  it('masks a runner’s check summary and an agent’s report by the fingerprints', async () => {
    const app = await startApp('/srv/repo-m', { heartbeatIntervalMs: 60_000 });
    try {
      const ir = playbook(
        `  work:
    role: implementer
    prompt: Work
    outputs: { note: string }
  check:
    needs: [work]
    run: echo "$TOKEN"
    env: { TOKEN: '\${{ inputs.token }}' }
`,
        'inputs:\n  token: { type: string, secret: true }\n',
      );
      const prepared = prepareInputs(ir, { token: SECRET });
      if (!prepared.ok) throw new Error(prepared.errors.join());
      const state = createRun(ir, { id: 'run-k', inputs: prepared.inputs, now: Date.now(), maskKey: KEY });
      // No secrets given: as a process that took the run up from the store.
      const driver = new Driver(state, { backend: app.backend, maskKey: KEY });
      driver.dispatch({ type: 'start' });
      const runner = new HandRunner(app.url, 'r1', ['/srv/repo-m']);
      await runner.heartbeat();
      const [agent] = await runner.claim();
      const leak = `the token is ${SECRET}`;
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(agent!.agent!.report.url), {
          requestInit: { headers: { Authorization: `Bearer ${agent!.agent!.report.token}` } },
        }),
      );
      await client.callTool({
        name: 'report_step_result',
        arguments: { outcome: 'done', summary: leak, outputs: { note: leak } },
      });
      await client.close();
      await runner.update(agent!.id, { terminal: { status: 'completed' } });
      await waitFor(
        'the check to be queued',
        () => driver.state.steps.size && stepStatus(driver.state, 'check') === 'running',
      );
      const [check] = await runner.claim();
      await runner.update(check!.id, {
        terminal: {
          status: 'completed',
          check: { outcome: 'pass', summary: leak, passed: 1, failed: 0, skipped: 0, todo: 0, exit_code: 0 },
        },
      });
      await waitFor('the run to end', () => driver.state.status === 'completed');
      const file = serializeRun(driver.state);
      expect(file).not.toContain(SECRET);
      expect(file).toContain(`the token is ${MASK}`);
    } finally {
      await app.backend.close();
    }
  });
});

function stepStatus(state: RunState, name: string): string | undefined {
  return vecToArray(state.steps).find((s) => s.name === name)?.status;
}
