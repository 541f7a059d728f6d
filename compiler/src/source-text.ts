/** Line/column conversion for one file's text, done once at the edge. Columns count UTF-16 code units. */

export interface Position {
  /** 0-based */
  line: number;
  /** 0-based, UTF-16 code units */
  character: number;
}

export class SourceText {
  /** worked out at the first conversion: a check with nothing to say never needs it */
  private starts: number[] | undefined;

  constructor(readonly text: string) {}

  private get lineStarts(): number[] {
    return (this.starts ??= lineStartsOf(this.text));
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const starts = this.lineStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: clamped - starts[low]! };
  }

  offsetAt(position: Position): number {
    const starts = this.lineStarts;
    if (position.line >= starts.length) return this.text.length;
    const start = starts[Math.max(0, position.line)]!;
    const next = position.line + 1 < starts.length ? starts[position.line + 1]! : this.text.length;
    return Math.min(start + Math.max(0, position.character), next);
  }

  /** The text of a 0-based line without its line break. */
  lineText(line: number): string {
    const starts = this.lineStarts;
    const start = starts[line] ?? this.text.length;
    let end = line + 1 < starts.length ? starts[line + 1]! : this.text.length;
    while (end > start && (this.text[end - 1] === '\n' || this.text[end - 1] === '\r')) end--;
    return this.text.slice(start, end);
  }
}

/** Where each line starts: after LF, CRLF or a lone CR. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  if (!text.includes('\r')) {
    // (the common case, by the native search)
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
    return starts;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}
