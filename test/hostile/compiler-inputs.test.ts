/**
 * Hostile input to the checker (issue 11): for each class, inputs of growing size are checked in process
 * (`validate`) and the largest by the built CLI (`check --format json`, the heap capped at 1 GiB), and
 * each must be answered with coded diagnostics: never a throw, a crash, a hang or output that is not
 * JSON. The classes and their generators are `bench/hostile.mjs`'s, which measures the same inputs'
 * time and memory. No timing is asserted; the timeouts are guards against hangs.
 */
import { describe, expect, it } from 'vitest';
import { checkIr, compilePlaybook, decodeSource, SourceText, validate } from '@kairoku-playbook/compiler';
import type { Diagnostic, JsonDiagnostic } from '@kairoku-playbook/compiler';
import { MAX_TREE_HEIGHT } from '@kairoku-playbook/grammar';
import { HOSTILE_CLASSES } from '../../bench/hostile.mjs';
import { evaluate } from '@kairoku-playbook/runtime';
import { checkJson, faultsOf, jsonFaultsOf } from './support.js';

/** A guard against hangs only: the inputs are large and the machine may be busy. */
const GUARD_MS = 600_000;

const classes = HOSTILE_CLASSES;
const FILE = 'hostile.playbook.yml';
const count = (diagnostics: readonly { code: string }[], code: string) =>
  diagnostics.filter((d) => d.code === code).length;
const byCode = (diagnostics: readonly { code: string }[]) => diagnostics.map((d) => d.code).sort();

/** What each class must also satisfy, past having coded diagnostics, at size n (in process). */
const SPECIFIC: Record<string, (diagnostics: Diagnostic[], text: string, n: number) => void> = {
  'flow-keys': (diagnostics, text, n) => {
    if (n > 200) return; // (deeper, the YAML parser itself gives up: one PB100)
    expect(byCode(diagnostics)).toEqual(['PB104']);
    const key = text.slice(diagnostics[0]!.range.start, diagnostics[0]!.range.end);
    expect(key).toBe(`${'[{'.repeat(n)}${'}]'.repeat(n)}`);
    expect(diagnostics[0]!.message).toBe(
      'a key must be a plain name, not a list; write the name itself before the ":"',
    );
  },
  'flow-keys-unclosed': (diagnostics) => expect(byCode(diagnostics)).toEqual(['PB100']),
  'expr-members': pastTheHeight,
  'expr-indexes': pastTheHeight,
  'expr-or': pastTheHeight,
  'expr-parens': pastTheHeight,
  'expr-not': pastTheHeight,
  'expr-calls': pastTheHeight,
  'type-nesting': (diagnostics, _text, n) => {
    if (n < MAX_TREE_HEIGHT) return;
    // (the output is also never read: PB901, whatever its type)
    expect(byCode(diagnostics)).toEqual(['PB403', 'PB901']);
    const pb403 = diagnostics.find((d) => d.code === 'PB403')!;
    expect(pb403.message).toContain(`nested more than ${MAX_TREE_HEIGHT} levels deep`);
  },
  'long-expressions': (diagnostics, _text, n) => {
    expect(byCode(diagnostics)).toEqual(Array<string>(n + 1).fill('PB400'));
    expect(diagnostics.filter((d) => d.message.includes(`nested more than ${MAX_TREE_HEIGHT}`))).toHaveLength(
      n,
    );
    expect(diagnostics.filter((d) => d.message.startsWith('expression longer than'))).toHaveLength(1);
  },
  'misspelt-needs': (diagnostics, _text, n) => {
    expect(count(diagnostics, 'PB200')).toBe(n);
    // the did-you-mean stays right however many names there are
    const messages = new Set(diagnostics.map((d) => d.message));
    const wrong: string[] = [];
    for (let i = 1; i < n - 1; i++) {
      const name = String(i).padStart(5, '0');
      const message = `unknown step "stpe-${name}" in needs; did you mean "step-${name}"?`;
      if (!messages.has(message)) wrong.push(name);
    }
    expect(wrong).toEqual([]);
  },
  'misspelt-references': (diagnostics, _text, n) => {
    expect(count(diagnostics, 'PB203')).toBe(n);
    expect(diagnostics.filter((d) => d.code === 'PB203' && d.message.includes('did you mean'))).toHaveLength(
      n,
    );
  },
  'dense-needs': (diagnostics, text, n) => {
    // one PB902 per step with redundant needs (every step from the third), on the first of them
    expect(count(diagnostics, 'PB902')).toBe(n - 2);
    for (const d of diagnostics) expect(text.slice(d.range.start, d.range.end)).toBe('s0');
  },
  'dense-cycle': (diagnostics) => expect(byCode(diagnostics)).toEqual(['PB300']),
  'long-cycle': (diagnostics, _text, n) => {
    expect(byCode(diagnostics)).toEqual(['PB300']);
    expect(diagnostics[0]!.related).toHaveLength(n);
  },
  'long-echo': (diagnostics) => {
    expect(diagnostics.length).toBeGreaterThanOrEqual(6);
    for (const d of diagnostics) expect(d.message).not.toMatch(/x{100}|b{100}/);
  },
  'big-numbers': (diagnostics, text) => {
    const value = /retries: (\S+)/.exec(text)![1]!;
    for (const where of [
      '"min" of input "count"',
      '"max" of input "count"',
      'of input "count" does not fit',
      '"retries" of step "probe"',
      '"max" of outcome "pass"',
      '"limits.concurrency"',
      '"limits.max_loops"',
    ])
      expect(
        diagnostics.some(
          (d) => d.message.includes(where) && text.slice(d.range.start, d.range.end) === value,
        ),
        `${where} = ${value}`,
      ).toBe(true);
    // no value of the IR is infinite, and no number of an expression is inexact
    const labelled = diagnostics.some((d) => d.message.includes('"labels.n"'));
    expect(labelled).toBe(['1e400', '.inf', '-.inf', '.nan'].includes(value));
    const literal = diagnostics.find((d) => d.code === 'PB400')?.message;
    if (value === '1e400') expect(literal).toContain('too large: numbers go up to');
    if (/^\d{16,}$/.test(value)) expect(literal).toContain('too large to be exact');
  },
  'many-values': (diagnostics, _text, n) => {
    if (n > 500_000) {
      expect(byCode(diagnostics)).toEqual(['PB100']);
      expect(diagnostics[0]!.message).toContain('too many values');
    }
  },
  'tab-lines': (diagnostics, _text, n) => expect(count(diagnostics, 'PB100')).toBe(n),
  'unknown-keys': (diagnostics, _text, n) => expect(count(diagnostics, 'PB102')).toBe(n),
  'many-expressions': (diagnostics, _text, n) => expect(count(diagnostics, 'PB202')).toBe(n),
};

/** Past the height limit: one PB400 that says so, and nothing else. */
function pastTheHeight(diagnostics: Diagnostic[], text: string, n: number): void {
  if (n < 100) return;
  expect(byCode(diagnostics)).toEqual(['PB400']);
  const d = diagnostics[0]!;
  expect(d.message).toContain(`nested more than ${MAX_TREE_HEIGHT} levels deep`);
  expect(text.slice(d.range.start, d.range.end)).toMatch(/^(\.|\[|\|\||\(|!)$/);
}

/** Where the first bad byte of `bytes` shows in its text: line and column, 1-based, UTF-16. */
function placeOf(bytes: Uint8Array, badAt: number): { line: number; column: number } {
  const prefix = new TextDecoder().decode(bytes.subarray(0, badAt));
  const position = new SourceText(prefix).positionAt(prefix.length);
  return { line: position.line + 1, column: position.character + 1 };
}

/** The in-process answers, kept for the CLI's to be compared with. */
const inProcess = new Map<string, Diagnostic[]>();

for (const hostile of classes) {
  describe(`${hostile.id}${hostile.issue ? ` (issue 11, item ${hostile.issue})` : ''}: ${hostile.what}`, () => {
    it(
      `in process, sizes ${hostile.sizes.join(', ')}: coded diagnostics, never a throw`,
      () => {
        for (const n of hostile.sizes) {
          const made = hostile.make(n);
          if (typeof made !== 'string') {
            const decoded = decodeSource(FILE, made.bytes);
            if (decoded.text !== undefined) throw new Error(`size ${n}: the bad bytes were decoded`);
            const diagnostic = decoded.diagnostic;
            const { line, column } = placeOf(made.bytes, made.badAt);
            expect(diagnostic.code).toBe('PB100');
            expect(diagnostic.message).toContain(`at byte ${made.badAt}, line ${line}, column ${column}`);
            expect(decoded.shownText.slice(diagnostic.range.start, diagnostic.range.end)).toBe('\ufffd');
            continue;
          }
          const diagnostics = validate([{ file: FILE, text: made }]);
          expect(faultsOf(diagnostics, made), `size ${n}`).toEqual([]);
          const wanted = hostile.codes(n);
          if (wanted)
            expect(
              diagnostics.some((d) => wanted.includes(d.code)),
              `size ${n}: ${wanted.join(' or ')}`,
            ).toBe(true);
          SPECIFIC[hostile.id]?.(diagnostics, made, n);
          if (n === hostile.sizes[hostile.sizes.length - 1]) inProcess.set(hostile.id, diagnostics);
        }
      },
      GUARD_MS,
    );

    const largest = hostile.sizes[hostile.sizes.length - 1]!;
    it(
      `the built CLI answers size ${largest} with JSON on stdout, within a 1 GiB heap`,
      async () => {
        const made = hostile.make(largest);
        const run = await checkJson(typeof made === 'string' ? made : made.bytes, {
          fileName: FILE,
          guardMs: GUARD_MS,
        });
        expect(run.hung, 'killed by the hang guard').toBe(false);
        expect(run.signal).toBeNull();
        expect(run.stderr).toBe('');
        expect([0, 1], `exit ${run.status}`).toContain(run.status);
        expect(run.diagnostics, `stdout: ${run.stdout.slice(0, 200)}`).toBeDefined();
        const diagnostics = run.diagnostics as JsonDiagnostic[];
        expect(jsonFaultsOf(diagnostics)).toEqual([]);
        const wanted = hostile.codes(largest);
        if (wanted) expect(diagnostics.some((d) => wanted.includes(d.code))).toBe(true);
        if (typeof made !== 'string') {
          const { line, column } = placeOf(made.bytes, made.badAt);
          expect(diagnostics.map((d) => d.code)).toEqual(['PB100']);
          expect(diagnostics[0]!.message).toContain(`at byte ${made.badAt}, line ${line}, column ${column}`);
          return;
        }
        // the CLI prints what validate says, unchanged
        const expected = inProcess.get(hostile.id) ?? validate([{ file: FILE, text: made }]);
        expect(byCode(diagnostics)).toEqual(byCode(expected));
      },
      GUARD_MS,
    );
  });
}

describe('the height limit holds from the parser to the runtime', () => {
  const probe = (condition: string) =>
    `version: 1\ntitle: Height\ninputs:\n  flag: { type: boolean, default: false }\nsteps:\n  probe:\n    run: x\n    when: |\n      ${condition}\n`;

  it(`a condition exactly ${MAX_TREE_HEIGHT} levels high compiles, passes checkIr and evaluates`, () => {
    const shapes = [
      `${'!'.repeat(MAX_TREE_HEIGHT - 2)}inputs.flag`, // 62 "!", the member and its root
      ['inputs.flag', ...Array<string>(MAX_TREE_HEIGHT - 2).fill('true')].join(' || '), // 62 "||" over the member
      `${'('.repeat(MAX_TREE_HEIGHT - 2)}inputs.flag${')'.repeat(MAX_TREE_HEIGHT - 2)}`,
    ];
    for (const condition of shapes) {
      const { ir, diagnostics } = compilePlaybook('height.yml', probe(condition));
      expect(diagnostics).toEqual([]);
      const checked = checkIr(JSON.parse(JSON.stringify(ir)));
      expect(checked.ok).toBe(true);
      const when = ir!.steps[0]!.when!.expr;
      expect(typeof evaluate(when, { inputs: { flag: false } })).toBe('boolean');
    }
  });

  it('one level more is one PB400 on the place past the limit, and nothing reaches the IR', () => {
    const text = probe(`${'!'.repeat(MAX_TREE_HEIGHT - 1)}inputs.flag`);
    const { ir, diagnostics } = compilePlaybook('height.yml', text);
    expect(ir).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toEqual(['PB400']);
    // (the outermost "!": the one whose tree is one level too high)
    const bangs = text.indexOf('!');
    expect(diagnostics[0]!.range).toEqual({ start: bangs, end: bangs + 1 });
  });
});

describe('keys that are not names', () => {
  const valid = 'version: 1\ntitle: Keys\nsteps:\n  fix: { role: implementer, prompt: Fix it }\n';

  it('a list, a mapping or an alias as a key is one PB104 on the key, and the entry is left out', () => {
    for (const [text, key, what] of [
      [`${valid}  ? [b]\n  : { run: x }\n`, '[b]', 'a list'],
      [`${valid}  ? { b: 1 }\n  : { run: x }\n`, '{ b: 1 }', 'a mapping'],
      [valid.replace('  fix:', '  &n fix:').concat('labels: { *n : x }\n'), '*n', 'an alias'],
    ] as const) {
      const diagnostics = validate([{ file: 'keys.yml', text }]);
      expect(diagnostics.map((d) => d.code)).toEqual(['PB104']);
      expect(text.slice(diagnostics[0]!.range.start, diagnostics[0]!.range.end)).toBe(key);
      expect(diagnostics[0]!.message).toContain(`not ${what}`);
    }
  });

  it('inside a value already of the wrong shape, or of an unknown key, only that is reported', () => {
    const prompt = valid.replace('prompt: Fix it', 'prompt: {{ inputs.task }}');
    expect(validate([{ file: 'keys.yml', text: prompt }]).map((d) => d.code)).toEqual(['PB104']);
    const unknown = `${valid}extra: { [a]: 1 }\n`;
    expect(validate([{ file: 'keys.yml', text: unknown }]).map((d) => d.code)).toEqual(['PB102']);
  });
});
