import { describe, expect, it } from 'vitest';
import { yamlCursorAt } from '../../../src/service/language/yaml-cursor.js';
import { withCursor } from '../../support/cursor.js';

function cursor(sample: string) {
  const { text, offset } = withCursor(sample);
  return yamlCursorAt(text, offset);
}

describe('where the cursor stands in the YAML, read from the text', () => {
  it('reads the block mappings above by indentation', () => {
    expect(cursor('steps:\n  plan:\n    role: x\n    <|>\n')).toMatchObject({
      path: ['steps', 'plan'],
      position: 'key',
      siblings: ['role'],
      keyColumn: 4,
    });
    expect(cursor('steps:\n  plan:\n    ro<|>\n    prompt: |\n      x\n')).toMatchObject({
      path: ['steps', 'plan'],
      position: 'key',
      word: { prefix: 'ro' },
      siblings: ['prompt'],
    });
  });

  it('reads a value, in a flow sequence, a flow mapping and a block sequence', () => {
    expect(cursor('steps:\n  b:\n    role: pl<|>\n')).toMatchObject({
      path: ['steps', 'b', 'role'],
      position: 'value',
    });
    expect(cursor('steps:\n  b:\n    needs: [a, <|>]\n')).toMatchObject({
      path: ['steps', 'b', 'needs'],
      position: 'value',
      inSequence: true,
      siblings: ['a'],
      flow: true,
    });
    expect(cursor('inputs:\n  t: { type: string, de<|> }\n')).toMatchObject({
      path: ['inputs', 't'],
      position: 'key',
      siblings: ['type'],
      flow: true,
    });
    expect(cursor('inputs:\n  t: { type: str<|> }\n')).toMatchObject({
      path: ['inputs', 't', 'type'],
      position: 'value',
    });
    expect(cursor('steps:\n  b:\n    needs:\n      - a\n      - <|>\n')).toMatchObject({
      path: ['steps', 'b', 'needs'],
      position: 'value',
      inSequence: true,
      siblings: ['a'],
    });
    expect(cursor('steps:\n  b:\n    needs:\n    - a\n    - <|>\n')).toMatchObject({
      path: ['steps', 'b', 'needs'],
      siblings: ['a'],
    });
  });

  it('reads quoted keys and values, and CRLF line breaks', () => {
    expect(cursor('steps:\r\n  "plan":\r\n    <|>\r\n')).toMatchObject({
      path: ['steps', 'plan'],
      position: 'key',
    });
    expect(cursor('steps:\n  b:\n    role: "pla<|>"\n')).toMatchObject({
      path: ['steps', 'b', 'role'],
      word: { prefix: 'pla' },
    });
  });

  it('knows nothing inside a block scalar, a multi-line plain scalar, or a comment', () => {
    expect(cursor('steps:\n  a:\n    prompt: |\n      some <|>\n')).toBeUndefined();
    expect(cursor('steps:\n  a:\n    prompt: >-\n      x\n\n      y<|>\n')).toBeUndefined();
    expect(cursor('title: a long\n  title <|>\n')).toBeUndefined();
    expect(cursor('steps: # <|>\n')).toBeUndefined();
  });

  it('sees the root at column 0', () => {
    expect(cursor('version: 1\nti<|>')).toMatchObject({ path: [], position: 'key', siblings: ['version'] });
  });
});
