import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { describe, expect, it } from 'vitest';
import { SCHEMAS, checkBody, describeProblems } from '../../../src/backends/kairoku/index.js';

const ROOT = new URL('../../../../', import.meta.url).pathname;
const DIR = join(ROOT, 'runtime/schema/kairoku/v1');
const DOC = join(ROOT, 'docs/kairoku-protocol.md');

/** A schema file as the repository's formatter leaves it. */
async function fileText(name: string, schema: Record<string, unknown>): Promise<string> {
  const file = join(DIR, `${name}.schema.json`);
  return format(JSON.stringify(schema, null, 2), { ...(await resolveConfig(file)), filepath: file });
}

describe('the protocol schemas', { timeout: 30_000 }, () => {
  it('are written out as runtime/schema/kairoku/v1/*.schema.json, unchanged', async () => {
    if (process.env.KAIROKU_WRITE_SCHEMAS) {
      mkdirSync(DIR, { recursive: true });
      for (const [name, schema] of Object.entries(SCHEMAS))
        writeFileSync(join(DIR, `${name}.schema.json`), await fileText(name, schema));
    }
    const files = readdirSync(DIR)
      .filter((f) => f.endsWith('.schema.json'))
      .sort();
    expect(files).toEqual(
      Object.keys(SCHEMAS)
        .map((n) => `${n}.schema.json`)
        .sort(),
    );
    for (const [name, schema] of Object.entries(SCHEMAS))
      expect(
        readFileSync(join(DIR, `${name}.schema.json`), 'utf8'),
        `${name}: regenerate with KAIROKU_WRITE_SCHEMAS=1`,
      ).toBe(await fileText(name, schema));
  });

  it('accept every example in docs/kairoku-protocol.md, each checked against the schema it names', () => {
    const text = readFileSync(DOC, 'utf8');
    const examples = [...text.matchAll(/<!-- schema: ([a-z.-]+) -->\s*```json\n([\s\S]*?)```/g)];
    expect(examples.length).toBeGreaterThanOrEqual(10);
    const named = new Set<string>();
    for (const [, name, json] of examples) {
      named.add(name!);
      const problems = checkBody(name!, JSON.parse(json!));
      expect(problems, `${name}: ${describeProblems(problems)}`).toEqual([]);
    }
    for (const name of Object.keys(SCHEMAS)) expect(named, `an example of ${name}`).toContain(name);
  });
});
