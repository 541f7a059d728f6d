/**
 * Hostile and broken input: each gets diagnostics with a clear message and a range inside the file,
 * never a throw, a hang or a crash. (No timing assertions: each runs in a few hundred milliseconds
 * at most, and vitest's own timeout catches a hang.)
 */
import { describe, expect, it } from 'vitest';
import { CODES, YAML_LIMITS, analyzeFile, decodeSource, validate } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';

/** Checks one file, asserting what every diagnostic of bad input must satisfy. */
function check(text: string, file = 'bad.yml'): Diagnostic[] {
  const diagnostics = validate([{ file, text }]);
  const wrong = diagnostics.filter(
    (d) =>
      d.file !== file ||
      !Object.prototype.hasOwnProperty.call(CODES, d.code) ||
      d.message.length < 10 ||
      !(0 <= d.range.start && d.range.start <= d.range.end && d.range.end <= text.length),
  );
  expect(wrong).toEqual([]);
  return diagnostics;
}

const codes = (diagnostics: Diagnostic[]) => diagnostics.map((d) => d.code);

const valid = `version: 1
title: Fix a bug
inputs:
  task: { type: string }
steps:
  fix:
    role: implementer
    prompt: Fix \${{ inputs.task }}
`;

describe('YAML syntax errors', () => {
  const broken: Record<string, string> = {
    'an unclosed flow sequence': valid.replace('role: implementer', 'needs: [a\n    role: implementer'),
    'an unclosed flow mapping': valid.replace('{ type: string }', '{ type: string'),
    'an unclosed double quote': valid.replace('prompt: Fix', 'prompt: "Fix'),
    'an unclosed single quote': valid.replace('prompt: Fix', "prompt: 'Fix"),
    'a line indented too far': valid.replace('    prompt:', '      prompt:'),
    'a line indented too little': valid.replace('    prompt:', '   prompt:'),
    'a ": " in a plain value': valid.replace('prompt: Fix', 'prompt: Fix this: now'),
    'a reserved character': valid.replace('prompt: Fix', 'prompt: @Fix'),
    'a stray closing bracket': valid.replace('role: implementer', 'role: implementer]'),
    'a key without a value on the root': `${valid}oops\n`,
    'a lone colon': `${valid}:\n`,
    'a tag that does not exist': valid.replace('role: implementer', 'role: !!binary implementer'),
    'a directive in the middle': `${valid}%YAML 1.2\n`,
    'only a document end marker': '...\n',
    'a block scalar indicator without content': valid.replace(
      'prompt: Fix ${{ inputs.task }}',
      'prompt: |9\n  x',
    ),
  };
  for (const [what, text] of Object.entries(broken)) {
    it(`${what}: diagnostics with clear messages inside the file, nothing thrown`, () => {
      const diagnostics = check(text);
      expect(diagnostics.length).toBeGreaterThan(0);
    });
  }

  it('an unclosed quote is one PB100 on the opening quote', () => {
    const text = valid.replace('prompt: Fix', 'prompt: "Fix');
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(text.slice(diagnostics[0]!.range.start, diagnostics[0]!.range.end)).toBe('"');
  });
});

describe('refusal limits', () => {
  /** The billion laughs: 9 levels of 9 aliases, 9^9 nodes once expanded. */
  const bomb = () => {
    const levels = [`  l0: &a0 [${Array(9).fill('lol').join(', ')}]`];
    for (let i = 1; i <= 8; i++)
      levels.push(
        `  l${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    return `labels:\n${levels.join('\n')}\n`;
  };

  it('an alias bomb (9 levels of 9 aliases) is refused by the alias expansion limit', () => {
    const text = `${valid}${bomb()}`;
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(diagnostics[0]!.message).toContain(
      `aliases expand to more than ${YAML_LIMITS.maxAliasExpansion} nodes`,
    );
    // on an alias of the source, not somewhere in what it expands to
    expect(text.slice(diagnostics[0]!.range.start, diagnostics[0]!.range.end)).toMatch(/^\*a\d$/);
  });

  it('an alias bomb used as an input default is refused too, and the model does not expand it', () => {
    const text = `version: 1\ntitle: Bomb\n${bomb()}inputs:\n  files: { type: "list<string>", default: *a8 }\nsteps:\n  fix:\n    role: implementer\n    prompt: Fix \${{ join(inputs.files) }}\n`;
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(diagnostics[0]!.message).toContain('aliases expand');
  });

  it('a file over the size limit is refused before it is parsed', () => {
    const text = `${valid}# ${'x'.repeat(YAML_LIMITS.maxFileSize)}\n`;
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(diagnostics[0]!.message).toContain('too large');
  });

  it('nesting 10,000 levels deep in flow style is one PB100', () => {
    for (const text of [
      `${valid}labels: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`,
      `${valid}labels: ${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n`,
      `${valid}labels: ${'['.repeat(10_000)}\n`,
    ]) {
      const diagnostics = check(text);
      expect(diagnostics[0]!.code).toBe('PB100');
      expect(diagnostics[0]!.message).toContain('nest');
    }
  });

  it('block mappings nested 10,000 levels deep are over the size limit: one PB100', () => {
    // one more space of indentation per level: 10,000 levels take ~50 MB
    const mappings = Array.from({ length: 10_000 }, (_, i) => `${' '.repeat(i + 2)}k${i}:`).join('\n');
    const diagnostics = check(`${valid}labels:\n${mappings} 1\n`);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(diagnostics[0]!.message).toContain('too large');
  });

  it('block mappings and sequences nested as deep as the size limit allows are one PB100', () => {
    const depth = 3_000; // 3,000 levels of indentation are ~4.5 MB
    const mappings = Array.from({ length: depth }, (_, i) => `${' '.repeat(i + 2)}k${i}:`).join('\n');
    const sequences = Array.from({ length: depth }, (_, i) => `${' '.repeat(i + 2)}-`).join('\n');
    for (const text of [`${valid}labels:\n${mappings} 1\n`, `${valid}labels:\n${sequences} x\n`]) {
      const diagnostics = check(text);
      expect(codes(diagnostics)).toEqual(['PB100']);
      expect(diagnostics[0]!.message).toContain(`nesting is deeper than ${YAML_LIMITS.maxDepth} levels`);
    }
  });

  it('more steps than the limit are one PB100 on "steps"', () => {
    const steps = Array.from({ length: YAML_LIMITS.maxSteps + 1 }, (_, i) => `  s${i}: { run: x }`).join(
      '\n',
    );
    const text = `version: 1\ntitle: Many\nsteps:\n${steps}\n`;
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(text.slice(diagnostics[0]!.range.start, diagnostics[0]!.range.end)).toBe('steps');
  });

  it('a generated file with thirty thousand unknown keys gets one PB102 each (no quadratic work)', () => {
    const keys = Array.from({ length: 30_000 }, (_, i) => `k${i}: 1`).join('\n');
    const diagnostics = check(`${valid}${keys}\n`);
    expect(diagnostics).toHaveLength(30_000);
    expect(new Set(codes(diagnostics))).toEqual(new Set(['PB102']));
  });
});

describe('bytes that are not a UTF-8 text', () => {
  it('binary bytes are refused by decodeSource with one PB100', () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]);
    const result = decodeSource('logo.yml', bytes);
    expect(result.text).toBeUndefined();
    expect(result.diagnostic?.code).toBe('PB100');
    expect(result.diagnostic?.message).toContain('binary');
  });

  it('invalid UTF-8 is refused by decodeSource with one PB100 naming the byte', () => {
    const bytes = new TextEncoder().encode('version: 1\ntitle: caf\u00e9\n');
    const latin1 = Uint8Array.from([...bytes.slice(0, 21), 0xe9, 0x0a]);
    const result = decodeSource('latin1.yml', latin1);
    expect(result.text).toBeUndefined();
    expect(result.diagnostic?.code).toBe('PB100');
    expect(result.diagnostic?.message).toContain('0xe9 at byte 21');
  });

  it('a truncated UTF-8 sequence at the end is refused', () => {
    const bytes = Uint8Array.from([...new TextEncoder().encode('title: x '), 0xf0, 0x9f]);
    expect(decodeSource('cut.yml', bytes).diagnostic?.code).toBe('PB100');
  });

  it('a byte order mark is dropped, and the text checks clean', () => {
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(valid)]);
    const result = decodeSource('bom.yml', bytes);
    expect(result.text).toBe(valid);
    expect(check(result.text!)).toEqual([]);
  });

  it('a NUL character in text that reached the compiler anyway is one PB100', () => {
    const text = `${valid}# \u0000\n`;
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(diagnostics[0]!.range.start).toBe(text.indexOf('\u0000'));
  });

  it('control characters and lone surrogates inside values do not crash', () => {
    check(valid.replace('Fix ${{', 'Fix \u0007\u001b[31m \ud800 \udfff ${{'));
    check(valid.replace('Fix ${{', '"Fix \\ud800 ${{').replace('task }}', 'task }}"'));
  });
});

describe('files that say nothing, or too much', () => {
  it('an empty file is one PB103', () => {
    for (const text of ['', '\n', '   \n\n']) expect(codes(check(text))).toEqual(['PB103']);
  });

  it('a file with only comments is one PB103', () => {
    expect(codes(check('# a playbook, one day\n# with steps\n'))).toEqual(['PB103']);
  });

  it('a file with only a document marker is one PB103', () => {
    expect(codes(check('---\n'))).toEqual(['PB103']);
  });

  it('a scalar or a list instead of a mapping is one PB104', () => {
    expect(codes(check('just some text\n'))).toEqual(['PB104']);
    expect(codes(check('- version: 1\n'))).toEqual(['PB104']);
  });

  it('two YAML documents: one PB100 on the second, and the first is checked', () => {
    const text = `${valid}---\n${valid.replace('task }}', 'tsk }}')}`;
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100']);
    expect(text.slice(diagnostics[0]!.range.start, diagnostics[0]!.range.end)).toBe('---');
  });

  it('tab indentation: one PB100 per tab-indented line, on the tab', () => {
    const text = valid.replace('    role:', '\trole:').replace('    prompt:', '\tprompt:');
    const diagnostics = check(text);
    expect(codes(diagnostics)).toEqual(['PB100', 'PB100']);
    for (const d of diagnostics) expect(text.slice(d.range.start, d.range.end)).toBe('\t');
  });
});

describe('names that are special in JavaScript are plain names', () => {
  const special = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

  it('as step, input, role and output names: PB105 where they are invalid names', () => {
    for (const name of special) {
      const text = `version: 1
title: Special
inputs:
  ${name}: { type: string }
roles:
  ${name}: { base: reviewer }
steps:
  ${name}:
    role: reviewer
    prompt: Review \${{ inputs.${name} }}
    outputs:
      ${name}: string
  after-it:
    needs: ${name}
    role: reviewer
    prompt: Read \${{ steps.${name}.outputs.${name} }}
outputs:
  ${name}: \${{ steps.${name}.outputs.${name} }}
`;
      const diagnostics = check(text);
      const valid = /^[a-z][a-z0-9_-]*$/.test(name);
      expect(codes(diagnostics), name).toEqual(valid ? [] : ['PB105', 'PB105', 'PB105', 'PB105', 'PB105']);
      for (const d of diagnostics) expect(text.slice(d.range.start, d.range.end)).toBe(name);
    }
  });

  it('as unknown keys: PB102 at every level', () => {
    for (const name of special) {
      const text = `version: 1
title: Special
${name}: 1
inputs:
  task: { type: string, ${name}: 1 }
steps:
  fix:
    role: implementer
    prompt: Fix \${{ inputs.task }}
    ${name}: 1
    outcomes:
      done: { loop: fix, ${name}: 1 }
`;
      const diagnostics = check(text);
      expect(codes(diagnostics), name).toEqual(['PB102', 'PB102', 'PB102', 'PB102']);
      for (const d of diagnostics) expect(text.slice(d.range.start, d.range.end)).toBe(name);
    }
  });

  it('as references to names that do not exist: unknown, not found on Object.prototype', () => {
    const text = valid.replace(
      'Fix ${{ inputs.task }}',
      'Fix ${{ inputs.task }} ${{ inputs.constructor }} ${{ steps.toString.outputs.x }} ${{ run.hasOwnProperty }} ${{ toString(1) }}',
    );
    expect(codes(check(text))).toEqual(['PB202', 'PB203', 'PB209', 'PB402']);
    const roles = valid.replace('role: implementer', 'role: constructor');
    expect(codes(check(roles))).toEqual(['PB201']);
    const needs = valid.replace('    role: implementer', '    needs: [__proto__]\n    role: implementer');
    expect(codes(check(needs))).toEqual(['PB200']);
  });

  it('leave Object.prototype unpolluted', () => {
    const polluter =
      '{ polluted: 1, __proto__: { polluted: 2 }, constructor: { prototype: { polluted: 3 } } }';
    const text = `version: 1
title: Pollution
__proto__: ${polluter}
labels: { __proto__: x, constructor: y }
inputs:
  __proto__: ${polluter}
  task: { type: string, default: { __proto__: { polluted: 4 } }, __proto__: { polluted: 5 } }
roles:
  __proto__: ${polluter}
  reviewer: { tools: { __proto__: ${polluter} } }
steps:
  __proto__: ${polluter}
  fix:
    role: implementer
    prompt: Fix \${{ inputs.task }}
    env: { __proto__: x }
    outputs: { __proto__: ${polluter} }
    outcomes: { __proto__: ${polluter}, done: { loop: fix, __proto__: ${polluter} } }
  ship:
    needs: fix
    gate: { __proto__: ${polluter}, choices: { __proto__: ${polluter} } }
outputs: { __proto__: ${polluter} }
`;
    const diagnostics = check(text);
    expect(diagnostics.length).toBeGreaterThan(0);
    const plain = {} as Record<string, unknown>;
    expect(plain.polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(typeof ({} as { constructor: unknown }).constructor).toBe('function');
    expect(analyzeFile('again.yml', valid).diagnostics).toEqual([]);
  });
});
