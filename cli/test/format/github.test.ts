import { describe, expect, it } from 'vitest';
import { SourceText } from '@kairoku-playbook/compiler';
import { escapeData, escapeProperty, formatGithub } from '../../src/format/github.js';
import { sampleDiagnostics, sourceOf } from './fixtures.js';

describe('escaping', () => {
  it('escapes %, CR and LF in data', () => {
    expect(escapeData('100% done\r\nnext: a,b')).toBe('100%25 done%0D%0Anext: a,b');
  });

  it('additionally escapes : and , in properties', () => {
    expect(escapeProperty('C:\\x,y%\n')).toBe('C%3A\\x%2Cy%25%0A');
  });

  it('escapes % first, so escapes are not escaped twice', () => {
    expect(escapeData('%0A')).toBe('%250A');
    expect(escapeProperty('%3A:')).toBe('%253A%3A');
  });
});

describe('formatGithub', () => {
  it('prints nothing for no diagnostics', () => {
    expect(formatGithub([], sourceOf)).toBe('');
  });

  it('prints one workflow command per diagnostic', () => {
    expect(formatGithub(sampleDiagnostics(), sourceOf)).toBe(
      [
        '::error file=playbooks/crlf.yml,line=1,col=10,endLine=1,endColumn=11,title=PB106::unsupported version 2; this toolchain reads version 1%0Afix: set version to 1',
        '::error file=playbooks/crlf.yml,line=3,col=10,endLine=3,endColumn=10,title=PB103::missing required key "title"',
        '::error file=playbooks/gone.yml,title=PB100::cannot read file',
        '::error file=playbooks/pr.yml,line=4,endLine=7,title=PB300::dependency cycle: review → review%0Arelated: playbooks/pr.yml:5:13: review needs reviw%0Arelated: playbooks/other.yml: declared here',
        '::error file=playbooks/pr.yml,line=5,col=13,endLine=5,endColumn=18,title=PB200::unknown step "reviw" in needs; did you mean "review"?%0Afix: change to "review"',
        '::warning file=playbooks/pr.yml,line=6,col=10,endLine=6,endColumn=15,title=PB900::input "a\tb" is never used',
        '::error file=playbooks/pr.yml,line=7,col=42,endLine=7,endColumn=45,title=PB202::unknown input "tsk"; did you mean "task"?',
        '::error file=playbooks/pr.yml,line=8,col=33,endLine=8,endColumn=34,title=PB203::unknown step "x" in an expression',
        '::notice file=playbooks/pr.yml,line=9,endLine=10,title=PB901::output "log" is declared but never referenced',
        '::error file=playbooks/pr.yml,line=10,endLine=12,title=PB400::expression syntax error',
        '::error file=playbooks/pr.yml,line=13,col=1,endLine=13,endColumn=1,title=PB103::missing required key "outputs"',
        '',
      ].join('\n'),
    );
  });

  it('escapes the file property and the message', () => {
    const file = 'odd:dir/a,b%.yml';
    const source = new SourceText('x: 1\n');
    const out = formatGithub(
      [
        {
          file,
          range: { start: 3, end: 4 },
          severity: 'info',
          code: 'PB902',
          message: '50% of it:\r\nsecond, line',
        },
      ],
      () => source,
    );
    expect(out).toBe(
      '::notice file=odd%3Adir/a%2Cb%25.yml,line=1,col=4,endLine=1,endColumn=5,title=PB902::50%25 of it:%0D%0Asecond, line\n',
    );
  });

  it('shows the control characters a message quotes instead of writing them into the log', () => {
    const source = new SourceText('x: 1\n');
    const out = formatGithub(
      [
        {
          file: 'a.yml',
          range: { start: 3, end: 4 },
          severity: 'error',
          code: 'PB200',
          message: 'unknown step "\x1b]0;PWNED\x07\x1b[2J\u202ex" in needs',
        },
      ],
      () => source,
    );
    expect(out).toBe(
      '::error file=a.yml,line=1,col=4,endLine=1,endColumn=5,title=PB200::unknown step "\u241b]0;PWNED\u2407\u241b[2J\uFFFDx" in needs\n',
    );
  });

  it('makes absolute paths relative to cwd', () => {
    const out = formatGithub(
      [
        {
          file: '/repo/p/a.yml',
          range: { start: 0, end: 0 },
          severity: 'warning',
          code: 'PB900',
          message: 'm',
        },
      ],
      () => undefined,
      { cwd: '/repo' },
    );
    expect(out).toBe('::warning file=p/a.yml,title=PB900::m\n');
  });
});
