/**
 * Property tests of the language core: whatever text comes in — random strings, YAML-ish token soup,
 * or a valid playbook mutated line by line — validation never throws, and every diagnostic has a
 * range inside the text, a code from CODES and a message.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CODES, analyzeFile, toJsonDiagnostic, validate } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { FIXTURES } from './support/fixtures.js';

/** The problems with one file's diagnostics; empty when all is well. */
function problems(text: string, diagnostics: readonly Diagnostic[], file: string): string[] {
  const found: string[] = [];
  const inside = (r: { start: number; end: number }) =>
    Number.isInteger(r.start) &&
    Number.isInteger(r.end) &&
    0 <= r.start &&
    r.start <= r.end &&
    r.end <= text.length;
  for (const d of diagnostics) {
    const what = `${d.code} ${JSON.stringify(d.range)} ${d.message}`;
    if (d.file !== file) found.push(`wrong file: ${what}`);
    if (!inside(d.range)) found.push(`range outside the text (${text.length}): ${what}`);
    if (!Object.prototype.hasOwnProperty.call(CODES, d.code)) found.push(`unknown code: ${what}`);
    if (typeof d.message !== 'string' || d.message.trim() === '') found.push(`empty message: ${what}`);
    if (!['error', 'warning', 'info'].includes(d.severity)) found.push(`bad severity: ${what}`);
    for (const r of d.related ?? []) {
      if (r.file === file && !inside(r.range)) found.push(`related range outside the text: ${what}`);
      if (r.message.trim() === '') found.push(`related without a message: ${what}`);
    }
  }
  return found;
}

/** Checks a text; throws (failing the property) on any problem. `both`: through `validate` too. */
function holds(text: string, both = false): void {
  const file = 'prop.yml';
  const analysis = analyzeFile(file, text);
  const found = problems(text, analysis.diagnostics, file);
  for (const d of analysis.diagnostics) toJsonDiagnostic(d, () => analysis.source);
  if (both && validate([{ file, text }]).length !== analysis.diagnostics.length)
    found.push('validate and analyzeFile disagree');
  if (found.length) throw new Error(`${found.join('\n')}\n--- text ---\n${text}`);
}

const RUNS = 1_000;

describe('arbitrary text', () => {
  it('random strings of any code point (lone surrogates included)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => holds(text, true)),
      { numRuns: RUNS },
    );
  });

  it('random strings of YAML and template tokens', () => {
    const token = fc.constantFrom(
      'version: 1\n',
      'title: T\n',
      'steps:\n',
      'inputs:\n',
      '  a:\n',
      '    role: implementer\n',
      '    prompt: ',
      '    run: ',
      '    needs: ',
      '    gate:\n',
      '      choices:\n',
      '    outcomes:\n',
      '      done: { loop: a }\n',
      'x: ',
      '- ',
      '? ',
      ': ',
      '[',
      ']',
      '{',
      '}',
      ',',
      '"',
      "'",
      '\\',
      '#',
      '|',
      '|2-',
      '>',
      '&a ',
      '*a',
      '!!str ',
      '!!binary ',
      '<<: ',
      '---\n',
      '...\n',
      '%YAML 1.2\n',
      '${{ ',
      ' }}',
      '$${{',
      'inputs.task',
      'steps.a.outputs.x',
      "len('x')",
      '(',
      ')',
      ' && ',
      ' == ',
      '__proto__',
      '\n',
      '\r\n',
      '\r',
      '\t',
      '  ',
      '😀',
      '\u0000',
      '\ufeff',
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (tokens) => holds(tokens.join(''), true)),
      { numRuns: RUNS },
    );
  });
});

describe('mutations of the valid fixtures', () => {
  const valid = readdirSync(join(FIXTURES, 'ok'))
    .filter((name) => name.endsWith('.yml'))
    .sort()
    .map((name) => readFileSync(join(FIXTURES, 'ok', name), 'utf8'));

  it('the fixtures themselves are clean', () => {
    for (const text of valid) expect(analyzeFile('ok.yml', text).diagnostics).toEqual([]);
  });

  type Mutation = (lines: string[]) => string[];
  const at = (lines: string[], n: number) => (lines.length === 0 ? 0 : n % lines.length);
  /** Inserts text from `inserted` somewhere in one line. */
  const insertion = (inserted: fc.Arbitrary<string>): fc.Arbitrary<Mutation> =>
    fc.tuple(fc.nat(), fc.nat(), inserted).map(
      ([n, col, text]): Mutation =>
        (lines) =>
          lines.map((l, i) =>
            i === at(lines, n) ? l.slice(0, col % (l.length + 1)) + text + l.slice(col % (l.length + 1)) : l,
          ),
    );
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.nat().map(
      (n): Mutation =>
        (lines) =>
          lines.filter((_, i) => i !== at(lines, n)),
    ),
    fc.nat().map(
      (n): Mutation =>
        (lines) =>
          lines.flatMap((l, i) => (i === at(lines, n) ? [l, l] : [l])),
    ),
    fc.tuple(fc.nat(), fc.nat()).map(([a, b]): Mutation => (lines) => {
      const copy = [...lines];
      const i = at(copy, a);
      const j = at(copy, b);
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
      return copy;
    }),
    insertion(fc.string({ unit: 'binary', minLength: 1, maxLength: 4 })),
    insertion(fc.constantFrom('"', "'", ':', '[', '{', '}', '${{', '}}', '#', '-', '&', '*', '|', '\t')),
    fc.tuple(fc.nat(), fc.integer({ min: -4, max: 4 })).map(
      ([n, by]): Mutation =>
        (lines) =>
          lines.map((l, i) =>
            i !== at(lines, n) ? l : by >= 0 ? ' '.repeat(by) + l : l.replace(new RegExp(`^ {0,${-by}}`), ''),
          ),
    ),
    fc.nat().map((n): Mutation => (lines) => {
      // truncate, possibly in the middle of a line
      const text = lines.join('\n');
      return text.slice(0, n % (text.length + 1)).split('\n');
    }),
  );

  it('delete, duplicate and swap lines, insert characters, change indentation, truncate', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: valid.length - 1 }),
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (which, mutations, crlf) => {
          let lines = valid[which]!.split(/\r?\n/);
          for (const mutate of mutations) lines = mutate(lines);
          holds(lines.join(crlf ? '\r\n' : '\n'));
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);
});
