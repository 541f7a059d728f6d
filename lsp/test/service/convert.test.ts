import { describe, expect, it } from 'vitest';
import { SourceText, codeLink } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { encodeSemanticTokens, toLspDiagnostic } from '../../src/service/convert.js';

describe('diagnostics at the edge', () => {
  it('keeps code, message and severity, converts ranges in UTF-16 and adds where the code is documented', () => {
    const text = 'title: "😀 é"\nsteps: x\n';
    const source = new SourceText(text);
    const diagnostic: Diagnostic = {
      file: 'p.yml',
      range: { start: text.indexOf('é'), end: text.indexOf('é') + 1 },
      severity: 'warning',
      code: 'PB900',
      message: 'something',
      related: [{ file: 'q.yml', range: { start: 0, end: 5 }, message: 'there' }],
    };
    const lsp = toLspDiagnostic(
      diagnostic,
      (file) => (file === 'p.yml' ? source : new SourceText('steps\n')),
      (file) => `file:///ws/${file}`,
    );
    expect(lsp).toEqual({
      range: { start: { line: 0, character: 11 }, end: { line: 0, character: 12 } },
      severity: 2,
      code: 'PB900',
      codeDescription: { href: codeLink('PB900') },
      source: 'kairoku-playbook',
      message: 'something',
      tags: [1],
      relatedInformation: [
        {
          location: {
            uri: 'file:///ws/q.yml',
            range: { start: { line: 0, character: 0 }, end: { line: 0, character: 5 } },
          },
          message: 'there',
        },
      ],
    });
  });
});

describe('semantic token encoding', () => {
  it('encodes relative positions and splits a token that crosses lines after their indentation', () => {
    const text = 'a: x\n  bb "cc\n    dd" e\n';
    const source = new SourceText(text);
    const data = encodeSemanticTokens(source, [
      { range: { start: 3, end: 4 }, type: 'variable', modifiers: ['readonly'] },
      { range: { start: text.indexOf('"cc'), end: text.indexOf('dd"') + 3 }, type: 'string', modifiers: [] },
      {
        range: { start: text.indexOf(' e') + 1, end: text.indexOf(' e') + 2 },
        type: 'property',
        modifiers: [],
      },
    ]);
    expect(data).toEqual([0, 3, 1, 0, 1, 1, 5, 3, 3, 0, 1, 4, 3, 3, 0, 0, 4, 1, 1, 0]);
  });
});
