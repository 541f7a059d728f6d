/* eslint-disable no-control-regex -- these patterns match terminal control sequences on purpose */
/**
 * CSI sequences (colours, cursor moves), OSC sequences (titles, links), character set designations
 * (`ESC ( B`, which Rust's test harness sends after each colour) and the other two-byte escapes.
 */
const ANSI =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[ -/]+[0-~]|\u001b[@-Z\\-_]/g;
/* eslint-enable no-control-regex */

/** Removes colour and other terminal control sequences. */
export function stripAnsi(text: string): string {
  return text.includes('\u001b') ? text.replace(ANSI, '') : text;
}

/**
 * A line as a terminal would leave it, for the readers: no colour codes, no line-ending `\r`, and of a
 * line redrawn with `\r` (a progress bar) only its last drawing.
 */
export function cleanLine(raw: string): string {
  let text = stripAnsi(raw);
  if (text.endsWith('\r')) text = text.slice(0, -1);
  const redrawn = text.lastIndexOf('\r');
  return redrawn >= 0 ? text.slice(redrawn + 1) : text;
}
