/**
 * Text that came from outside (agents' summaries and outputs, check output, gate titles rendered
 * from them, a daemon's or runner's messages) as a terminal may show it: every control sequence is
 * taken out, so a summary cannot retitle the terminal (`ESC ] 0 ; … BEL`), clear it (`ESC [ 2 J`),
 * move the cursor over earlier lines, write to the clipboard (OSC 52), or reorder what is shown with
 * bidirectional overrides ("Trojan Source"). Removed:
 *
 * - ESC sequences whole: CSI (`ESC [` parameters, intermediates, final byte), the string commands OSC,
 *   DCS, SOS, PM and APC up to their terminator (BEL or ST), and two-character ones (`ESC c`, `ESC 7`);
 * - their 8-bit (C1) forms the same way, and every other C1 control (U+0080–U+009F);
 * - every C0 control but line feed and tab (carriage return and backspace overwrite what was shown),
 *   and DEL;
 * - the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
 *
 * What is left is printable. Run files and `--json` output keep the text as it came (JSON escapes
 * what it must); only what is written to a terminal goes through this. `oneLine` also turns line
 * breaks and tabs into spaces, for a line that must stay one line (a progress line cannot fake the
 * next one).
 */
export function forTerminal(text: string, options: { oneLine?: boolean } = {}): string {
  const clean = text.replace(CONTROL, '');
  return options.oneLine ? clean.replace(/[\t\n]+/g, ' ') : clean;
}

const ST = String.raw`(?:\x07|\x1b\\|\x9c)`;
const CONTROL = new RegExp(
  [
    // OSC, DCS, SOS, PM, APC: their body too, when terminated (unterminated, only the introducer goes)
    String.raw`\x1b[\]PX^_][\s\S]*?${ST}`,
    String.raw`[\x90\x98\x9d\x9e\x9f][\s\S]*?${ST}`,
    // CSI, 7- and 8-bit
    String.raw`(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?`,
    // the other ESC sequences: intermediates, then a final byte
    String.raw`\x1b[\x20-\x2f]*[\x30-\x7e]?`,
    // what is left of C0 (not tab, not line feed), DEL and C1
    String.raw`[\x00-\x08\x0b-\x1f\x7f-\x9f]`,
    // bidirectional embeddings, overrides and isolates
    String.raw`[\u202a-\u202e\u2066-\u2069]`,
  ].join('|'),
  'g',
);
