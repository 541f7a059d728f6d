/**
 * The `explore` setting: the language server reports PB310 and PB311 as `check --explore` does (the
 * parity tests compare every fixture with the CLI), within its budget per playbook (EXPLORE_BUDGET_MS),
 * and not at all when the client turns it off. The service's side (budget, notes, suppressions) is in
 * test/service/explore.test.ts.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, fileUri, startClient } from '../support/client.js';
import { tempDir } from '../../../test/kit/temp.js';

/** A loop that would go round forever: `fix` only ever asks to fix again, so its `max` ends every run. */
const FOREVER = `version: 1
title: Forever
steps:
  fix:
    role: implementer
    prompt: Fix it
    outcomes: { again: { loop: fix, max: 3 } }
  ship: { needs: fix, role: implementer, prompt: Ship }
`;

const dir = tempDir('kp-lsp-explore-');
const uri = fileUri(join(dir, 'forever.playbook.yml'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(() => buildServer(), 120_000);

describe('the explore setting', () => {
  it('shows PB310 on a playbook whose loop can run forever (on by default)', async () => {
    const client = await startClient();
    await client.open(uri, FOREVER);
    const diagnostics = await client.diagnosticsOf(uri, 1);
    expect(diagnostics.map((d) => [d.code, d.severity, d.range.start])).toEqual([
      ['PB310', 2, { line: 7, character: 2 }],
    ]);
    expect(diagnostics[0]!.message).toBe(
      'step "ship" can never run: no run goes on past "fix" (it never completes, or completing ends the run)',
    );
    expect(diagnostics[0]!.relatedInformation?.[0]?.message).toBe(
      '"fix" is declared here: every run fails, ends or waits at it',
    );
    // Mended, the warning goes with the next edit.
    await client.notify('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [
        { text: FOREVER.replace('again: { loop: fix, max: 3 }', 'done: next, again: { loop: fix, max: 3 }') },
      ],
    });
    expect(await client.diagnosticsOf(uri, 2)).toEqual([]);
    expect(await client.stop()).toBe(0);
  });

  it('reports nothing of the explorer when the client turns it off', async () => {
    const client = await startClient({ initializationOptions: { validationDelay: 0, explore: false } });
    await client.open(uri, FOREVER);
    expect(await client.diagnosticsOf(uri, 1)).toEqual([]);
    expect(await client.stop()).toBe(0);
  });

  it('says so when the setting is not a boolean, and explores', async () => {
    const client = await startClient({ initializationOptions: { explore: 'yes' } });
    await client.open(uri, FOREVER);
    expect((await client.diagnosticsOf(uri, 1)).map((d) => d.code)).toEqual(['PB310']);
    expect(client.logs.map((l) => l.message)).toContain(
      'initializationOptions.explore must be true or false; it is on',
    );
    expect(await client.stop()).toBe(0);
  });
});
