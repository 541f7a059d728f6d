/** Line/column conversion for one file's text, done once at the edge. Columns count UTF-16 code units. */

export interface Position {
  /** 0-based */
  line: number;
  /** 0-based, UTF-16 code units */
  character: number;
}

export class SourceText {
  private readonly lineStarts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.lineStarts = starts;
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.lineStarts[mid]! <= clamped) low = mid;
      else high = mid - 1;
    }
    return { line: low, character: clamped - this.lineStarts[low]! };
  }

  offsetAt(position: Position): number {
    if (position.line >= this.lineStarts.length) return this.text.length;
    const start = this.lineStarts[Math.max(0, position.line)]!;
    const next =
      position.line + 1 < this.lineStarts.length ? this.lineStarts[position.line + 1]! : this.text.length;
    return Math.min(start + Math.max(0, position.character), next);
  }

  /** The text of a 0-based line without its line break. */
  lineText(line: number): string {
    const start = this.lineStarts[line] ?? this.text.length;
    let end = line + 1 < this.lineStarts.length ? this.lineStarts[line + 1]! : this.text.length;
    while (end > start && (this.text[end - 1] === '\n' || this.text[end - 1] === '\r')) end--;
    return this.text.slice(start, end);
  }
}
