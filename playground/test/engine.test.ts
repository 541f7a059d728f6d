/**
 * The page's engine as the page runs it: engine.ts bundled by playground/build.mjs with the browser's
 * aliases (node:crypto → @noble/hashes), run here in Node. Its IR must be `compile`'s byte for byte (the
 * hash of the source included) and its JSON `check --format json`'s, for every sample playbook.
 */
import { createHash as nodeCreateHash } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../../cli/test/in-process.js';
import { REPO } from '../../test/kit/cli.js';
import { tempDir } from '../../test/kit/temp.js';
import { buildEngineForNode } from '../build.mjs';
import { createHash } from '../src/node-crypto.js';

interface Engine {
  checkText: (file: string, text: string) => { json: string; irText: string | undefined };
}

let work: string;
let engine: Engine;

beforeAll(async () => {
  work = tempDir('playground-engine-');
  const file = join(work, 'engine.mjs');
  await buildEngineForNode(file);
  engine = (await import(pathToFileURL(file).href)) as Engine;
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the playground's engine", () => {
  it("hashes as node:crypto's sha256 does", () => {
    for (const text of ['', 'steps: {}\n', 'ünïcødé ✓ 𝄞 \u0000', 'x'.repeat(100_000)])
      expect(createHash('sha256').update(text).digest('hex')).toBe(
        nodeCreateHash('sha256').update(text).digest('hex'),
      );
  });

  const samples = readdirSync(join(REPO, 'playbooks')).filter((name) => /^[^.]+\.yml$/.test(name));
  it.each(samples)('gives %s the IR of compile and the JSON of check --format json', (name) => {
    const dir = join(REPO, 'playbooks');
    const text = readFileSync(join(dir, name), 'utf8');
    const page = engine.checkText(name, text);
    expect(page.json).toBe(runMain(['check', '--format', 'json', name], dir).stdout);
    expect(page.irText).toBe(runMain(['compile', name], dir).stdout);
  });

  it('gives a playbook with errors their JSON and no IR', () => {
    const text = 'version: 1\nid: x\nsteps:\n  a: { role: nobody, prompt: hi }\n';
    const page = engine.checkText('x.yml', text);
    expect(JSON.parse(page.json).length).toBeGreaterThan(0);
    expect(page.irText).toBeUndefined();
  });
});
