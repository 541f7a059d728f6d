/**
 * One rule names a file wherever the tool shows one: the compiler's `displayPath` (relative to the
 * working folder when inside it, with forward slashes). `check` names the files it reads by it, and the
 * CLI's formats print a diagnostic's file by it too; they used to have a `displayPath` of their own, built
 * on `path.relative`, which kept the platform's separators and left a path it did not take for absolute
 * alone.
 */
import { describe, expect, it } from 'vitest';
import { displayPath } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { escapeProperty, formatGithub, formatText } from '../cli/src/format/index.js';

const CASES: [file: string, cwd: string][] = [
  ['/repo/playbooks/pr.yml', '/repo'],
  ['/repo/playbooks/pr.yml', '/repo/'],
  ['/elsewhere/pr.yml', '/repo'],
  ['/repository/pr.yml', '/repo'],
  ['playbooks/pr.yml', '/repo'],
  ['C:\\repo\\playbooks\\pr.yml', 'C:\\repo'],
  ['C:\\elsewhere\\pr.yml', 'C:\\repo'],
];

function diagnostic(file: string): Diagnostic {
  return { file, range: { start: 0, end: 0 }, severity: 'warning', code: 'PB900', message: 'm' };
}

describe("the formats print a diagnostic's file as the compiler's displayPath names it", () => {
  for (const [file, cwd] of CASES) {
    it(`${file} from ${cwd}`, () => {
      const shown = displayPath(file, cwd);
      expect(formatGithub([diagnostic(file)], () => undefined, { cwd })).toBe(
        `::warning file=${escapeProperty(shown)},title=PB900::m\n`,
      );
      expect(formatText([diagnostic(file)], () => undefined, { color: false, cwd }).split('\n')[0]).toBe(
        `${shown}: warning PB900 m`,
      );
    });
  }

  it('and print it as it is without a working folder', () => {
    expect(formatGithub([diagnostic('C:\\repo\\pr.yml')], () => undefined)).toBe(
      `::warning file=${escapeProperty('C:\\repo\\pr.yml')},title=PB900::m\n`,
    );
  });
});
