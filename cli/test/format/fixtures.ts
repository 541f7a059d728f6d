import type { Diagnostic, OffsetRange } from '@kairoku-playbook/compiler';
import { SourceText } from '@kairoku-playbook/compiler';

/**
 * A playbook with a tab-indented line (and a tab inside it), emoji before a range (a family emoji
 * is one grapheme of 8 UTF-16 units and two terminal cells), wide CJK characters and a combining
 * accent before a range, and a multi-line `run` with a blank line in it.
 */
export const PR = [
  'version: 1',
  'id: pr',
  'steps:',
  '  review:',
  '    needs: [reviw]',
  '\tprompt: "a\tb"',
  '    title: "🚀 \u{1F468}\u200D\u{1F469}\u200D\u{1F467} ship" ${{ inputs.tsk }}',
  '    summary: 名前 cafe\u0301 ${{ steps.x }}',
  '    run: |',
  '      echo one',
  '',
  '      echo two',
  '',
].join('\n');

/** CRLF line ends and no final line break. */
export const CRLF = ['version: 2', 'id: crlf', 'steps: {}'].join('\r\n');

export const SOURCES: Record<string, SourceText> = {
  'playbooks/pr.yml': new SourceText(PR),
  'playbooks/crlf.yml': new SourceText(CRLF),
};

export const sourceOf = (file: string): SourceText | undefined => SOURCES[file];

/** The range of the `occurrence`-th (0-based) `needle` in `text`. */
export function rangeOf(text: string, needle: string, occurrence = 0): OffsetRange {
  let start = -1;
  for (let i = 0; i <= occurrence; i++) {
    start = text.indexOf(needle, start + 1);
    if (start < 0) throw new Error(`${JSON.stringify(needle)} not found`);
  }
  return { start, end: start + needle.length };
}

/** The range from the start of `from` to the end of `to`. */
export function between(text: string, from: string, to: string): OffsetRange {
  const start = rangeOf(text, from).start;
  return { start, end: text.indexOf(to, start) + to.length };
}

export const PR_FILE = 'playbooks/pr.yml';
export const CRLF_FILE = 'playbooks/crlf.yml';

/** One of each case the formats have to get right, in no particular order. */
export function sampleDiagnostics(): Diagnostic[] {
  return [
    {
      file: PR_FILE,
      range: rangeOf(PR, 'tsk'),
      severity: 'error',
      code: 'PB202',
      message: 'unknown input "tsk"; did you mean "task"?',
    },
    {
      file: CRLF_FILE,
      range: rangeOf(CRLF, '2'),
      severity: 'error',
      code: 'PB106',
      message: 'unsupported version 2; this toolchain reads version 1',
      fix: { title: 'set version to 1', edits: [{ range: rangeOf(CRLF, '2'), newText: '1' }] },
    },
    {
      file: PR_FILE,
      range: rangeOf(PR, 'reviw'),
      severity: 'error',
      code: 'PB200',
      message: 'unknown step "reviw" in needs; did you mean "review"?',
      fix: { title: 'change to "review"', edits: [{ range: rangeOf(PR, 'reviw'), newText: 'review' }] },
    },
    {
      file: PR_FILE,
      range: rangeOf(PR, '"a\tb"'),
      severity: 'warning',
      code: 'PB900',
      message: 'input "a\tb" is never used',
    },
    {
      file: PR_FILE,
      range: between(PR, 'run: |', 'echo one'),
      severity: 'info',
      code: 'PB901',
      message: 'output "log" is declared but never referenced',
    },
    {
      file: PR_FILE,
      range: between(PR, 'review:', 'title'),
      severity: 'error',
      code: 'PB300',
      message: 'dependency cycle: review → review',
      related: [
        { file: PR_FILE, range: rangeOf(PR, 'reviw'), message: 'review needs reviw' },
        { file: 'playbooks/other.yml', range: { start: 3, end: 5 }, message: 'declared here' },
      ],
    },
    {
      file: PR_FILE,
      range: { start: rangeOf(PR, 'steps.x').start + 6, end: rangeOf(PR, 'steps.x').end },
      severity: 'error',
      code: 'PB203',
      message: 'unknown step "x" in an expression',
    },
    {
      file: PR_FILE,
      range: between(PR, 'echo one', 'echo two'),
      severity: 'error',
      code: 'PB400',
      message: 'expression syntax error',
    },
    {
      file: PR_FILE,
      range: { start: PR.length, end: PR.length },
      severity: 'error',
      code: 'PB103',
      message: 'missing required key "outputs"',
    },
    {
      file: CRLF_FILE,
      range: { start: CRLF.length, end: CRLF.length },
      severity: 'error',
      code: 'PB103',
      message: 'missing required key "title"',
    },
    {
      file: 'playbooks/gone.yml',
      range: { start: 0, end: 0 },
      severity: 'error',
      code: 'PB100',
      message: 'cannot read file',
    },
  ];
}
