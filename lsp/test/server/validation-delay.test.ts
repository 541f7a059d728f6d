/**
 * The adaptive validation delay (src/server/validation-delay.ts): the policy as a pure function, then the
 * server with no `validationDelay` (the adaptive default) answering one edit with its diagnostics, pushed
 * and pulled. No figure of time is asserted here: bench/lsp-feedback.mjs measures edit → diagnostics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentDiagnosticReport } from 'vscode-languageserver-protocol';
import {
  BURST_GAP_MS,
  CHEAP_ANALYSIS_MS,
  MAX_ADAPTIVE_DELAY_MS,
  adaptiveValidationDelay,
} from '../../src/server/validation-delay.js';
import { buildServer, startClient } from '../support/client.js';
import type { TestClient } from '../support/client.js';

const delay = (lastValidationMs: number | undefined, sinceLastEditMs: number | undefined) =>
  adaptiveValidationDelay({ lastValidationMs, sinceLastEditMs });

describe('adaptiveValidationDelay', () => {
  it('does not wait before the first validation or after the first edit', () => {
    expect(delay(undefined, undefined)).toBe(0);
    expect(delay(500, undefined)).toBe(0);
  });

  it('does not wait while the analysis is cheap and the edits come at typing speed', () => {
    for (const cost of [0, 1, 10, CHEAP_ANALYSIS_MS])
      for (const gap of [BURST_GAP_MS, 60, 120, 1000]) expect(delay(cost, gap), `${cost}/${gap}`).toBe(0);
  });

  it('coalesces a burst of edits, however cheap the analysis', () => {
    for (const gap of [0, 1, BURST_GAP_MS - 1]) expect(delay(5, gap)).toBe(BURST_GAP_MS);
    expect(delay(undefined, 0)).toBe(BURST_GAP_MS);
  });

  it('waits about the analysis time while a costly document is typed in', () => {
    expect(delay(100, 150)).toBe(100);
    expect(delay(80, 10)).toBe(80);
    expect(delay(CHEAP_ANALYSIS_MS + 1, 30)).toBe(CHEAP_ANALYSIS_MS + 1);
  });

  it('does not wait for an edit after a pause of twice the analysis, however costly', () => {
    expect(delay(100, 200)).toBe(0);
    expect(delay(400, 5000)).toBe(0);
  });

  it('is bounded, and a whole number of milliseconds', () => {
    expect(delay(5000, 100)).toBe(MAX_ADAPTIVE_DELAY_MS);
    expect(delay(10_000, 0)).toBe(MAX_ADAPTIVE_DELAY_MS);
    expect(delay(42.6, 50)).toBe(43);
  });

  it('takes a nonsense measurement as none', () => {
    expect(delay(Number.NaN, 10)).toBe(BURST_GAP_MS);
    expect(delay(Number.POSITIVE_INFINITY, Number.NaN)).toBe(0);
    expect(delay(-5, 100)).toBe(0);
  });

  it('never waits longer when the analysis gets cheaper, the gap fixed', () => {
    for (const gap of [0, 10, 50, 100, 400])
      for (let cost = 0; cost < 1000; cost += 7)
        expect(delay(cost, gap)).toBeLessThanOrEqual(Math.max(delay(cost + 7, gap), BURST_GAP_MS));
  });
});

const URI = 'file:///virtual/playbooks/delay.yml';
const TEXT = `version: 1
title: Delay
steps:
  plan:
    role: planner
    prompt: Plan
  build:
    needs: [plan]
    role: implementer
    prompt: Build
`;
const BROKEN = TEXT.replace('needs: [plan]', 'needs: [plna]');

describe('the server with the adaptive delay (no validationDelay)', () => {
  let push: TestClient;

  beforeAll(async () => {
    buildServer();
    push = await startClient({ initializationOptions: {} });
  }, 120_000);

  afterAll(async () => {
    if (push.process.exitCode === null) await push.stop();
  });

  it('publishes the diagnostics of one edit', async () => {
    await push.open(URI, TEXT);
    expect(await push.diagnosticsOf(URI, 1)).toEqual([]);
    await push.notify('textDocument/didChange', {
      textDocument: { uri: URI, version: 2 },
      contentChanges: [{ text: BROKEN }],
    });
    const diagnostics = await push.diagnosticsOf(URI, 2);
    expect(diagnostics.map((d) => d.code)).toEqual(['PB200']);
  });

  it('publishes the last version of a burst of edits', async () => {
    const last = 22;
    // (the broken and the fixed text alternate; the last one is fixed)
    // All sent before any is awaited, so that they reach the server together.
    const sent: Promise<void>[] = [];
    for (let version = 3; version <= last; version++)
      sent.push(
        push.notify('textDocument/didChange', {
          textDocument: { uri: URI, version },
          contentChanges: [{ text: (last - version) % 2 ? BROKEN : TEXT }],
        }),
      );
    await Promise.all(sent);
    expect(await push.diagnosticsOf(URI, last)).toEqual([]);
  });

  it('answers a pull after one edit with the diagnostics of the edit', async () => {
    const pull = await startClient({
      initializationOptions: {},
      capabilities: { textDocument: { diagnostic: { dynamicRegistration: false } } },
    });
    try {
      await pull.open(URI, TEXT);
      await pull.notify('textDocument/didChange', {
        textDocument: { uri: URI, version: 2 },
        contentChanges: [{ text: BROKEN }],
      });
      const report = await pull.request<DocumentDiagnosticReport & { items: { code: string }[] }>(
        'textDocument/diagnostic',
        { textDocument: { uri: URI } },
      );
      expect(report.kind).toBe('full');
      expect(report.items.map((d) => d.code)).toEqual(['PB200']);
    } finally {
      await pull.stop();
    }
  }, 30_000);
});
