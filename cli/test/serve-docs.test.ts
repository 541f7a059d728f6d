import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunHost, simBackendFor, startServe } from '@kairoku-playbook/runtime/serve';
import type { RunningServe } from '@kairoku-playbook/runtime/serve';
import { tempDir } from '../../test/kit/index.js';

/**
 * docs/serve.md's example session runs against a real `serve` (in this process, real HTTP on
 * 127.0.0.1): its `yaml file=` blocks make the workspace; each `http request` block (METHOD PATH, then
 * the JSON body) is sent with the bearer token, and the `json answer status=N` block after it must
 * match: the status exactly, the body as a subset, where "…" matches any value and "RUN" the run's id.
 */

const doc = readFileSync(new URL('../../docs/serve.md', import.meta.url), 'utf8');
const blocks = [...doc.matchAll(/^```(\S+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
  lang: m[1]!,
  info: m[2]!.trim(),
  content: m[3]!,
}));

let folder: string;
let host: RunHost;
let serve: RunningServe;

beforeAll(async () => {
  folder = tempDir('serve-docs-');
  const workspace = join(folder, 'ws');
  mkdirSync(workspace);
  for (const block of blocks) {
    const file = /^file=(\S+)/.exec(block.info)?.[1];
    if (block.lang !== 'yaml' || file === undefined) continue;
    mkdirSync(dirname(join(workspace, file)), { recursive: true });
    writeFileSync(join(workspace, file), block.content);
  }
  host = new RunHost({
    home: join(folder, 'home'),
    workspace,
    backend: 'sim',
    backendFor: simBackendFor(undefined),
  });
  serve = await startServe({ host, listen: { host: '127.0.0.1', port: 0 }, watchPlaybooks: false });
});

afterAll(async () => {
  await serve.close();
  host.close();
  rmSync(folder, { recursive: true, force: true });
});

function matches(expected: unknown, actual: unknown, names: Map<string, string>, path: string): void {
  if (expected === '…') return;
  if (expected === 'RUN') {
    if (!names.has('RUN')) names.set('RUN', String(actual));
    expect(actual, path).toBe(names.get('RUN'));
    return;
  }
  if (Array.isArray(expected)) {
    expect(actual, path).toEqual(expected);
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    expect(actual, path).toBeTypeOf('object');
    for (const [key, value] of Object.entries(expected))
      matches(value, (actual as Record<string, unknown>)[key], names, `${path}.${key}`);
    return;
  }
  expect(actual, path).toBe(expected);
}

describe('docs/serve.md: the example session', () => {
  const names = new Map<string, string>();
  const requests = blocks
    .map((block, index) => ({ block, answer: blocks[index + 1] }))
    .filter(({ block }) => block.lang === 'http' && block.info === 'request');
  it('has examples', () => expect(requests.length).toBeGreaterThan(3));
  for (const { block, answer } of requests) {
    const [line, ...body] = block.content.split('\n');
    it(line!, async () => {
      expect(answer?.lang, 'an http request block is followed by a json answer block').toBe('json');
      const status = Number(/status=(\d+)/.exec(answer!.info)?.[1]);
      const [method, path] = line!.split(' ') as [string, string];
      const text = body.join('\n').trim();
      const response = await fetch(`${serve.url}${path.replace('RUN', names.get('RUN') ?? 'RUN')}`, {
        method,
        headers: {
          Authorization: `Bearer ${serve.token}`,
          ...(text ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(text ? { body: text } : {}),
      });
      const actual = (await response.json()) as unknown;
      expect({ status: response.status, body: actual }).toMatchObject({ status });
      matches(JSON.parse(answer!.content), actual, names, 'answer');
    });
  }
});
