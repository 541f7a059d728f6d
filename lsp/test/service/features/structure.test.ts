import { describe, expect, it } from 'vitest';
import { documentSymbols } from '../../../src/service/features/document-symbols.js';
import type { OutlineSymbol } from '../../../src/service/features/document-symbols.js';
import { foldingRanges } from '../../../src/service/features/folding-ranges.js';
import { toFoldingRange } from '../../../src/service/convert.js';
import { semanticTokens } from '../../../src/service/features/semantic-tokens.js';
import { BASE, analyze, slice } from '../../support/cursor.js';

function outline(symbols: OutlineSymbol[], depth = 0): string[] {
  return symbols.flatMap((s) => [
    `${'  '.repeat(depth)}${s.kind} ${s.name}${s.detail ? ` (${s.detail})` : ''}`,
    ...outline(s.children, depth + 1),
  ]);
}

describe('document symbols', () => {
  it('lists inputs, roles, steps with outputs and outcomes, after-tasks and outputs', () => {
    const text = `${BASE}after:
  notify:
    role: researcher
    prompt: Tell everyone.
outputs:
  branch: \${{ steps.build.outputs.branch }}
`;
    const analysis = analyze(text);
    const symbols = documentSymbols(analysis);
    expect(outline(symbols)).toEqual([
      'section inputs',
      '  input task (string)',
      '  input strict (boolean)',
      'section roles',
      '  role sec (base reviewer)',
      'section steps',
      '  step plan (agent step · planner)',
      '    output plan (string)',
      '    output files (list<string>)',
      '  step build (agent step · implementer)',
      '    output branch (string)',
      '  step qa (check step)',
      '  step review (agent step · sec)',
      '    outcome approved (outcome)',
      '    outcome changes (outcome)',
      'section after',
      '  after-task notify (after-task (agent) · researcher)',
      'section outputs',
      '  output branch',
    ]);
    const build = symbols[2]!.children[1]!;
    expect(slice(text, build.selectionRange)).toBe('build');
    expect(slice(text, build.range)).toMatch(/^build:\n {4}needs: \[plan\][\s\S]*branch: string\n?$/);
  });

  it('lists gate choices, and survives a broken document', () => {
    const gate = `version: 1\ntitle: G\nsteps:\n  ship:\n    gate:\n      choices:\n        approve: next\n        hold: end\n`;
    expect(outline(documentSymbols(analyze(gate)))).toEqual([
      'section steps',
      '  step ship (human gate)',
      '    outcome approve (choice)',
      '    outcome hold (choice)',
    ]);
    expect(() => documentSymbols(analyze('steps:\n  a: [\n  b: {'))).not.toThrow();
  });
});

describe('semantic tokens', () => {
  function tokens(text: string): string[] {
    return semanticTokens(analyze(text)).map(
      (t) => `${t.type}${t.modifiers.length ? `.${t.modifiers.join('.')}` : ''} ${slice(text, t.range)}`,
    );
  }

  it('classifies roots, properties, functions, strings, numbers, operators and literals', () => {
    const text = `version: 1
title: T
inputs:
  n: { type: integer }
steps:
  a:
    role: planner
    when: inputs.n >= 2 && !contains('x', "y") || null == true
    prompt: Go \${{ len(inputs['n']) }}
`;
    expect(tokens(text)).toEqual([
      'variable.readonly.defaultLibrary inputs',
      'property n',
      'operator >=',
      'number 2',
      'operator &&',
      'operator !',
      'function.defaultLibrary contains',
      "string 'x'",
      'string "y"',
      'operator ||',
      'keyword null',
      'operator ==',
      'keyword true',
      'function.defaultLibrary len',
      'variable.readonly.defaultLibrary inputs',
      "string 'n'",
    ]);
  });

  it('maps tokens exactly inside block, folded and double-quoted scalars with escapes', () => {
    const text = `version: 1
title: T
inputs:
  task: { type: string }
steps:
  a:
    role: planner
    prompt: >
      Fold
      \${{ inputs.task }}
    title: "\\u00e9\\t\${{ inputs.task }}"
  b:
    needs: [a]
    role: planner
    prompt: |
      x
        \${{ steps.a.outcome }}
`;
    expect(tokens(text)).toEqual([
      'variable.readonly.defaultLibrary inputs',
      'property task',
      'variable.readonly.defaultLibrary inputs',
      'property task',
      'variable.readonly.defaultLibrary steps',
      'property a',
      'property outcome',
    ]);
  });
});

describe('folding ranges', () => {
  it('folds steps, sections, block scalars and comment runs', () => {
    const text = `# A playbook
# with a header
version: 1
title: T
steps:
  a:
    role: planner
    prompt: |
      line one
      line two
  b:
    run: x
`;
    const analysis = analyze(text);
    const ranges = foldingRanges(analysis)
      .map((r) => toFoldingRange(analysis.source, r))
      .map((r) => `${r.startLine}-${r.endLine}${r.kind ? ` ${r.kind}` : ''}`);
    expect(ranges).toEqual(['0-1 comment', '4-11', '5-9', '7-9', '10-11']);
    for (const eol of ['\r\n', '\r']) {
      const other = analyze(text.replaceAll('\n', eol));
      const lines = foldingRanges(other)
        .map((r) => toFoldingRange(other.source, r))
        .map((r) => `${r.startLine}-${r.endLine}${r.kind ? ` ${r.kind}` : ''}`);
      expect(lines).toEqual(ranges);
    }
  });
});
