/**
 * Terminal layout of one source line for code frames: tabs expanded to tab stops, control
 * characters made visible, and each grapheme given the number of terminal cells it occupies, so
 * the carets under a range line up with the characters above them.
 */

export const TAB_WIDTH = 4;

export interface Cell {
  /** UTF-16 offset of the grapheme in the line */
  start: number;
  /** UTF-16 offset just past the grapheme */
  end: number;
  /** 0-based terminal column the grapheme starts at */
  column: number;
  /** terminal cells it occupies (0, 1 or 2; up to TAB_WIDTH for a tab) */
  width: number;
}

export interface LineLayout {
  /** the line as it is printed: tabs expanded, control characters replaced */
  rendered: string;
  cells: Cell[];
  width: number;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

const WIDE: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]/u;

function isWide(cp: number): boolean {
  return WIDE.some(([low, high]) => cp >= low && cp <= high);
}

/** Terminal cells of one grapheme (not a tab or a control character). */
export function graphemeWidth(grapheme: string): number {
  const cp = grapheme.codePointAt(0);
  if (cp === undefined) return 0;
  if (grapheme.includes('\uFE0E')) return 1;
  if (grapheme.includes('\uFE0F') || EMOJI_PRESENTATION.test(String.fromCodePoint(cp))) return 2;
  if (isWide(cp)) return 2;
  if (ZERO_WIDTH.test(grapheme)) return 0;
  return 1;
}

/** The graphemes of a text, in order. */
export function* graphemes(text: string): Generator<string> {
  for (const { segment } of segmenter.segment(text)) yield segment;
}

/** Terminal cells of a text without tabs or control characters: the sum of its graphemes' widths. */
export function textWidth(text: string): number {
  let width = 0;
  for (const grapheme of graphemes(text)) width += graphemeWidth(grapheme);
  return width;
}

/**
 * A visible stand-in for a control character, or `undefined` when `cp` is not one: C0 and DEL as their
 * control pictures (ESC is ␛), C1 and the bidirectional embeddings, overrides and isolates (which would
 * reorder what a terminal shows: "Trojan Source") as U+FFFD.
 */
function controlPicture(cp: number): string | undefined {
  if (cp < 0x20) return String.fromCodePoint(0x2400 + cp);
  if (cp === 0x7f) return '\u2421';
  if (cp >= 0x80 && cp <= 0x9f) return '\uFFFD';
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) return '\uFFFD';
  return undefined;
}

/**
 * A message (which may quote source text) as it can be printed: every control character but line feed
 * and tab replaced by its visible stand-in, so a playbook cannot send escape sequences to the terminal or
 * the CI log that shows `check`'s output.
 */
export function visibleControls(message: string): string {
  // eslint-disable-next-line no-control-regex
  return message.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, (c) =>
    controlPicture(c.charCodeAt(0))!,
  );
}

export function layoutLine(text: string): LineLayout {
  const cells: Cell[] = [];
  let rendered = '';
  let column = 0;
  for (const { segment, index } of segmenter.segment(text)) {
    const cp = segment.codePointAt(0)!;
    let shown: string;
    let width: number;
    if (segment === '\t') {
      width = TAB_WIDTH - (column % TAB_WIDTH);
      shown = ' '.repeat(width);
    } else {
      const picture = segment.length === 1 ? controlPicture(cp) : undefined;
      shown = picture ?? segment;
      width = picture === undefined ? graphemeWidth(segment) : 1;
    }
    cells.push({ start: index, end: index + segment.length, column, width });
    rendered += shown;
    column += width;
  }
  return { rendered, cells, width: column };
}

/**
 * The terminal columns `[from, to)` covered by the UTF-16 range `[from, to)` of the line. A range
 * that starts inside a grapheme starts at the grapheme; an empty range (or one covering only
 * zero-width characters) is one column wide, so it can always be pointed at.
 */
export function columnsOf(layout: LineLayout, from: number, to: number): { start: number; end: number } {
  const first = layout.cells.find((cell) => cell.end > from);
  const start = first ? first.column : layout.width;
  let end = start;
  if (to > from) {
    for (const cell of layout.cells) {
      if (cell.start >= to) break;
      if (cell.end > from) end = cell.column + cell.width;
    }
  }
  return { start, end: Math.max(end, start + 1) };
}
