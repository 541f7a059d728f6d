import { describe, expect, it } from 'vitest';
import { columnsOf, graphemeWidth, layoutLine } from '../../src/format/layout.js';

describe('graphemeWidth', () => {
  it.each([
    ['a', 1],
    ['é', 1],
    ['e\u0301', 1],
    ['名', 2],
    ['Ｆ', 2],
    ['🚀', 2],
    ['\u{1F468}\u200D\u{1F469}\u200D\u{1F467}', 2],
    ['\u{1F1E9}\u{1F1EA}', 2],
    ['\u2764\uFE0F', 2],
    ['\u2764', 1],
    ['\u200B', 0],
    ['\u0301', 0],
  ])('%j is %i cells', (grapheme, width) => {
    expect(graphemeWidth(grapheme)).toBe(width);
  });
});

describe('layoutLine', () => {
  it('expands tabs to the next multiple of 4', () => {
    expect(layoutLine('\ta\tbc\td').rendered).toBe('    a   bc  d');
    expect(layoutLine('名\tx').rendered).toBe('名  x');
  });

  it('replaces control characters with visible pictures', () => {
    const layout = layoutLine('a\x1bb\x7f\x00');
    expect(layout.rendered).toBe('a\u241bb\u2421\u2400');
    expect(layout.width).toBe(5);
  });

  it('shows bidirectional overrides and isolates instead of letting them reorder the line', () => {
    const layout = layoutLine('a\u202eb\u2066c');
    expect(layout.rendered).toBe('a\uFFFDb\uFFFDc');
    expect(layout.width).toBe(5);
  });

  it('keeps UTF-16 offsets per grapheme', () => {
    expect(layoutLine('🚀x').cells).toEqual([
      { start: 0, end: 2, column: 0, width: 2 },
      { start: 2, end: 3, column: 2, width: 1 },
    ]);
  });
});

describe('columnsOf', () => {
  const layout = layoutLine('a🚀\tb');
  it('maps UTF-16 ranges to terminal columns', () => {
    expect(columnsOf(layout, 0, 1)).toEqual({ start: 0, end: 1 });
    expect(columnsOf(layout, 1, 3)).toEqual({ start: 1, end: 3 });
    expect(columnsOf(layout, 3, 4)).toEqual({ start: 3, end: 4 });
    expect(columnsOf(layout, 4, 5)).toEqual({ start: 4, end: 5 });
  });

  it('widens a range that starts or ends inside a grapheme to the whole grapheme', () => {
    expect(columnsOf(layout, 2, 3)).toEqual({ start: 1, end: 3 });
    expect(columnsOf(layout, 0, 2)).toEqual({ start: 0, end: 3 });
  });

  it('gives an empty range one column, also past the end of the line', () => {
    expect(columnsOf(layout, 3, 3)).toEqual({ start: 3, end: 4 });
    expect(columnsOf(layout, 5, 5)).toEqual({ start: 5, end: 6 });
    expect(columnsOf(layoutLine(''), 0, 0)).toEqual({ start: 0, end: 1 });
  });
});
