import { describe, expect, it } from 'vitest';
import type { Code, Diagnostic } from '@kairoku-playbook/compiler';
import { SourceText } from '@kairoku-playbook/compiler';
import { formatText } from '../../src/format/text.js';
import { PR, PR_FILE, rangeOf, sampleDiagnostics, sourceOf } from './fixtures.js';

const lines = (...l: string[]) => l.join('\n') + '\n';

describe('formatText', () => {
  it('prints every case with a code frame, sorted, with a summary', () => {
    expect(formatText(sampleDiagnostics(), sourceOf, { color: false, fileCount: 4 })).toBe(
      lines(
        // CRLF file: the \r is not part of the line; the empty range at the end of a file without
        // a final line break points just past the last character.
        'playbooks/crlf.yml:1:10: error PB106 unsupported version 2; this toolchain reads version 1',
        ' 1 | version: 2',
        '   |          ^',
        '  fix: set version to 1',
        '',
        'playbooks/crlf.yml:3:10: error PB103 missing required key "title"',
        ' 3 | steps: {}',
        '   |          ^',
        '',
        // no text for the file: no line, no column, no frame
        'playbooks/gone.yml: error PB100 cannot read file',
        '',
        // four lines: three shown, each underlined from its first character in the range, then …
        'playbooks/pr.yml:4:3: error PB300 dependency cycle: review → review',
        ' 4 |   review:',
        '   |   ^^^^^^^',
        ' 5 |     needs: [reviw]',
        '   | ^^^^^^^^^^^^^^^^^^',
        ' 6 |     prompt: "a  b"',
        '   | ^^^^^^^^^^^^^^^^^^',
        '   | …',
        '  related: playbooks/pr.yml:5:13: review needs reviw',
        '  related: playbooks/other.yml: declared here',
        '',
        'playbooks/pr.yml:5:13: error PB200 unknown step "reviw" in needs; did you mean "review"?',
        ' 5 |     needs: [reviw]',
        '   |             ^^^^^',
        '  fix: change to "review"',
        '',
        // the leading tab goes to column 4, the inner tab (at column 14) to the next stop, 16;
        // the header column counts the tab as one UTF-16 unit
        'playbooks/pr.yml:6:10: warning PB900 input "a\tb" is never used',
        ' 6 |     prompt: "a  b"',
        '   |             ^^^^^^',
        '',
        // UTF-16 column 42: 🚀 is 2 units, the family emoji 8; on screen both are 2 cells wide
        'playbooks/pr.yml:7:42: error PB202 unknown input "tsk"; did you mean "task"?',
        ' 7 |     title: "🚀 \u{1F468}\u200D\u{1F469}\u200D\u{1F467} ship" ${{ inputs.tsk }}',
        '   | ' + ' '.repeat('    title: "'.length + 2 + 1 + 2 + ' ship" ${{ inputs.'.length) + '^^^',
        '',
        // 名前 is 2 UTF-16 units and 4 cells; e + combining acute is 2 units and 1 cell
        'playbooks/pr.yml:8:33: error PB203 unknown step "x" in an expression',
        ' 8 |     summary: 名前 cafe\u0301 ${{ steps.x }}',
        '   | ' + ' '.repeat('    summary: '.length + 4 + ' café ${{ steps.'.length) + '^',
        '',
        // a range over two lines; the gutter widens for line 10
        'playbooks/pr.yml:9:5: info PB901 output "log" is declared but never referenced',
        '  9 |     run: |',
        '    |     ^^^^^^',
        ' 10 |       echo one',
        '    | ^^^^^^^^^^^^^^',
        '',
        // a blank line inside a range gets no caret row, and no trailing space
        'playbooks/pr.yml:10:7: error PB400 expression syntax error',
        ' 10 |       echo one',
        '    |       ^^^^^^^^',
        ' 11 |',
        ' 12 |       echo two',
        '    | ^^^^^^^^^^^^^^',
        '',
        // an empty range at the end of a file ending in a line break: the empty last line
        'playbooks/pr.yml:13:1: error PB103 missing required key "outputs"',
        ' 13 |',
        '    | ^',
        '',
        '9 errors, 1 warning, 1 info in 4 files',
      ),
    );
  });

  it('colours severity, code and carets with ANSI escapes', () => {
    const [diagnostic] = sampleDiagnostics().filter((d) => d.code === 'PB900');
    expect(formatText([diagnostic!], sourceOf, { color: true, fileCount: 1 })).toBe(
      lines(
        '\x1b[1mplaybooks/pr.yml:6:10\x1b[0m: \x1b[1m\x1b[33mwarning\x1b[0m \x1b[2mPB900\x1b[0m input "a\tb" is never used',
        '\x1b[2m 6 |\x1b[0m     prompt: "a  b"',
        '\x1b[2m   |\x1b[0m             \x1b[1m\x1b[33m^^^^^^\x1b[0m',
        '',
        '\x1b[1m\x1b[33m1 warning\x1b[0m in 1 file',
      ),
    );
    const colored = formatText(sampleDiagnostics(), sourceOf, { color: true, fileCount: 4 });
    expect(colored).toContain('\x1b[1m\x1b[31merror\x1b[0m');
    expect(colored).toContain('\x1b[1m\x1b[36minfo\x1b[0m');
    expect(colored).toContain('\x1b[1m\x1b[36m^^^^^^\x1b[0m');
    // without colour there is not a single escape
    expect(formatText(sampleDiagnostics(), sourceOf, { color: false })).not.toContain('\x1b');
  });

  it('does not depend on the order the diagnostics come in', () => {
    const sorted = formatText(sampleDiagnostics(), sourceOf, { color: false });
    expect(formatText(sampleDiagnostics().reverse(), sourceOf, { color: false })).toBe(sorted);
  });

  it('sorts by file, then position, then code', () => {
    const at = (file: string, start: number, code: Code): Diagnostic => ({
      file,
      range: { start, end: start + 1 },
      severity: 'error',
      code,
      message: 'm',
    });
    const out = formatText(
      [at('b.yml', 0, 'PB100'), at('a.yml', 5, 'PB100'), at('a.yml', 2, 'PB201'), at('a.yml', 2, 'PB200')],
      () => undefined,
      { color: false },
    );
    expect(out.split('\n').filter((l) => l.includes(' m'))).toEqual([
      'a.yml: error PB200 m',
      'a.yml: error PB201 m',
      'a.yml: error PB100 m',
      'b.yml: error PB100 m',
    ]);
  });

  it('ends a range that stops at the start of a line on the line before', () => {
    const range = { start: rangeOf(PR, 'id: pr').start, end: rangeOf(PR, 'steps:').start };
    const out = formatText(
      [{ file: PR_FILE, range, severity: 'error', code: 'PB101', message: 'dup' }],
      sourceOf,
      {
        color: false,
        fileCount: 1,
      },
    );
    expect(out).toBe(
      lines('playbooks/pr.yml:2:1: error PB101 dup', ' 2 | id: pr', '   | ^^^^^^', '', '1 error in 1 file'),
    );
  });

  it('underlines a range from the line break of its first line with one caret past the text', () => {
    const range = { start: rangeOf(PR, '\nid: pr').start, end: rangeOf(PR, 'id:').end };
    const out = formatText(
      [{ file: PR_FILE, range, severity: 'error', code: 'PB100', message: 'm' }],
      sourceOf,
      {
        color: false,
      },
    );
    expect(out).toBe(
      lines(
        'playbooks/pr.yml:1:11: error PB100 m',
        ' 1 | version: 1',
        '   |           ^',
        ' 2 | id: pr',
        '   | ^^^',
        '',
        '1 error in 1 file',
      ),
    );
  });

  it('makes control characters in source lines and messages visible', () => {
    const source = new SourceText('a: "\x1b[31mred"\n');
    const out = formatText(
      [
        {
          file: 'c.yml',
          range: { start: 4, end: 9 },
          severity: 'info',
          code: 'PB901',
          message: 'bad \x1b[2J',
        },
      ],
      () => source,
      { color: false, fileCount: 1 },
    );
    expect(out).toBe(
      lines(
        'c.yml:1:5: info PB901 bad \u241b[2J',
        ' 1 | a: "\u241b[31mred"',
        '   |     ^^^^^',
        '',
        '1 info in 1 file',
      ),
    );
  });

  it('prints absolute paths inside cwd relative to it, related locations included', () => {
    const file = '/repo/playbooks/a.yml';
    const source = new SourceText('id: a\n');
    const out = formatText(
      [
        {
          file,
          range: { start: 4, end: 5 },
          severity: 'error',
          code: 'PB110',
          message: 'duplicate playbook id "a"',
          related: [{ file: '/elsewhere/b.yml', range: { start: 4, end: 5 }, message: 'also here' }],
        },
      ],
      (f) => (f === file ? source : undefined),
      { color: false, cwd: '/repo', fileCount: 2 },
    );
    expect(out).toBe(
      lines(
        'playbooks/a.yml:1:5: error PB110 duplicate playbook id "a"',
        ' 1 | id: a',
        '   |     ^',
        '  related: /elsewhere/b.yml: also here',
        '',
        '1 error in 2 files',
      ),
    );
  });

  describe('summary', () => {
    const diag = (severity: Diagnostic['severity'], file = 'a.yml'): Diagnostic => ({
      file,
      range: { start: 0, end: 0 },
      severity,
      code: 'PB100',
      message: 'm',
    });
    const last = (out: string) => out.trimEnd().split('\n').at(-1);

    it('says so when there are no problems', () => {
      expect(formatText([], sourceOf, { color: false, fileCount: 4 })).toBe('no problems in 4 files\n');
      expect(formatText([], sourceOf, { color: false, fileCount: 1 })).toBe('no problems in 1 file\n');
      expect(formatText([], sourceOf, { color: false, fileCount: 0 })).toBe('no problems in 0 files\n');
      expect(formatText([], sourceOf, { color: false })).toBe('no problems\n');
      expect(formatText([], sourceOf, { color: true, fileCount: 2 })).toBe('no problems in 2 files\n');
    });

    it('counts each severity, singular and plural, leaving out the ones with none', () => {
      const d = [diag('error'), diag('error'), diag('error'), diag('warning'), diag('info'), diag('info')];
      expect(last(formatText(d, sourceOf, { color: false, fileCount: 4 }))).toBe(
        '3 errors, 1 warning, 2 infos in 4 files',
      );
      expect(last(formatText([diag('error')], sourceOf, { color: false, fileCount: 1 }))).toBe(
        '1 error in 1 file',
      );
      expect(
        last(formatText([diag('warning'), diag('warning')], sourceOf, { color: false, fileCount: 3 })),
      ).toBe('2 warnings in 3 files');
      expect(last(formatText([diag('error'), diag('info')], sourceOf, { color: false, fileCount: 1 }))).toBe(
        '1 error, 1 info in 1 file',
      );
    });

    it('counts the files with diagnostics when no file count is given', () => {
      const d = [diag('error', 'a.yml'), diag('error', 'b.yml'), diag('info', 'a.yml')];
      expect(last(formatText(d, sourceOf, { color: false }))).toBe('2 errors, 1 info in 2 files');
    });
  });
});
