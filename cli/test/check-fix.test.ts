import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateWorkspace } from '@kairoku-playbook/compiler';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { runMain as run } from './in-process.js';
import { applyQuickFixes } from '../src/commands/check-fix.js';
import { REPO, workspaceWith } from '../../test/kit/index.js';

const FIXTURES = join(REPO, 'test/fixtures');

/** Every fixture playbook (a folder of them is one workspace), with its files' texts. */
function fixtures(): { name: string; files: Record<string, string> }[] {
  const found: { name: string; files: Record<string, string> }[] = [];
  for (const kind of ['err', 'ok']) {
    for (const entry of readdirSync(join(FIXTURES, kind)).sort()) {
      const path = join(FIXTURES, kind, entry);
      if (statSync(path).isDirectory()) {
        const files: Record<string, string> = {};
        for (const file of readdirSync(path))
          if (/\.ya?ml$/.test(file)) files[file] = readFileSync(path + '/' + file, 'utf8');
        found.push({ name: `${kind}/${entry}`, files });
      } else if (/\.ya?ml$/.test(entry))
        found.push({ name: `${kind}/${entry}`, files: { [entry]: readFileSync(path, 'utf8') } });
    }
  }
  return found;
}

/** What a diagnostic says, wherever it is: a fix moves the characters after it. */
const said = (d: Diagnostic) => `${d.file} ${d.code} ${d.message}`;

describe('check --fix on every fixture', () => {
  const all = fixtures();

  it('removes the diagnostic of every fix it applies, adds none, and a second --fix changes nothing', () => {
    let fixedFixtures = 0;
    let fixes = 0;
    for (const fixture of all) {
      const files = Object.entries(fixture.files).map(([file, text]) => ({ file, text }));
      const before = validateWorkspace(files).diagnostics;
      const result = applyQuickFixes(files);
      if (result.applied.length === 0) {
        expect({ fixture: fixture.name, changed: [...result.changed.keys()] }).toEqual({
          fixture: fixture.name,
          changed: [],
        });
        continue;
      }
      fixedFixtures++;
      fixes += result.applied.length;
      const after = validateWorkspace(result.files).diagnostics;
      // nothing new: every diagnostic after the fixes was there before (by what it says)
      const saidBefore = new Set(before.map(said));
      expect({ fixture: fixture.name, added: after.map(said).filter((s) => !saidBefore.has(s)) }).toEqual({
        fixture: fixture.name,
        added: [],
      });
      // each fix's diagnostic is gone: fewer diagnostics of its code than before
      for (const code of new Set(result.applied.map((fix) => fix.code))) {
        const count = (list: Diagnostic[]) => list.filter((d) => d.code === code).length;
        const applied = result.applied.filter((fix) => fix.code === code).length;
        expect({ fixture: fixture.name, code, left: count(after) }).toEqual({
          fixture: fixture.name,
          code,
          left: count(before) - applied,
        });
      }
      // no fix is left to apply
      const again = applyQuickFixes(result.files);
      expect({ fixture: fixture.name, again: again.applied }).toEqual({ fixture: fixture.name, again: [] });
    }
    // the sweep covers the fixes the compiler offers, not a handful
    expect(fixedFixtures).toBeGreaterThan(20);
    expect(fixes).toBeGreaterThan(20);
  });

  it('skips a fix that would add a diagnostic, and says why', () => {
    const folder = workspaceWith({
      'a.playbook.yml': readFileSync(join(FIXTURES, 'err/pb102-root-did-you-mean.yml'), 'utf8'),
    });
    const result = run(['check', '--fix'], folder);
    expect(result.stdout).toMatch(
      /^not fixed a\.playbook\.yml:2:1 {2}PB102 {2}Replace with "title": it would add PB101 duplicate key "title"; the first one is used\nnothing to fix\n/,
    );
    expect(result.code).toBe(1);
  });

  it('never changes a file with a YAML syntax error', () => {
    const broken =
      'version: 1\ntitle: Broken\nsteps:\n  a:\n    role: implementer\n    prompt: Do it.\n  b:\n    needs: [aa]\n    role: implementer\n    prompt: "unclosed\n';
    const result = applyQuickFixes([{ file: 'broken.yml', text: broken }]);
    expect(
      validateWorkspace([{ file: 'broken.yml', text: broken }]).diagnostics.map((d) => d.code),
    ).toContain('PB100');
    expect(result.applied).toEqual([]);
    expect(result.files[0]!.text).toBe(broken);
  });
});

const MISTAKES = `version: 1
title: Fix me
inputs:
  task: { type: string }
steps:
  plan:
    role: planer
    prompt: Plan \${{ inputs.tsk }}
    outputs: { plan: string }
  implement:
    needs: [plna]
    role: implementer
    prompt: Do \${{ steps.plan.outputs.plna }}
`;

describe('kairoku-playbook check --fix', () => {
  it('rewrites the file, says what it fixed, then checks again; a second run changes nothing', () => {
    const folder = workspaceWith({ 'a.playbook.yml': MISTAKES });
    const first = run(['check', '--fix'], folder);
    expect(first).toEqual({
      code: 0,
      stdout:
        'fixed a.playbook.yml:7:11  PB201  Replace with "planner"\n' +
        'fixed a.playbook.yml:8:29  PB202  Replace with "task"\n' +
        'fixed a.playbook.yml:11:13  PB200  Replace with "plan"\n' +
        'fixed a.playbook.yml:13:39  PB204  Replace with "plan"\n' +
        'fixed 4 problems in 1 file\n\nno problems in 1 file\n',
      stderr: '',
    });
    const fixed = readFileSync(join(folder, 'a.playbook.yml'), 'utf8');
    expect(fixed).toBe(
      MISTAKES.replace('planer', 'planner')
        .replace('tsk', 'task')
        .replace('[plna]', '[plan]')
        .replace('plna }}', 'plan }}'),
    );
    expect(run(['check', '--fix'], folder).stdout).toBe('nothing to fix\n\nno problems in 1 file\n');
    expect(readFileSync(join(folder, 'a.playbook.yml'), 'utf8')).toBe(fixed);
  });

  it('keeps a byte order mark and CRLF line ends', () => {
    const folder = workspaceWith({ 'a.playbook.yml': `\ufeff${MISTAKES.replace(/\n/g, '\r\n')}` });
    expect(run(['check', '--fix'], folder).stdout).toContain('fixed 4 problems in 1 file\n');
    const bytes = readFileSync(join(folder, 'a.playbook.yml'));
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8').slice(1)).toBe(
      MISTAKES.replace('planer', 'planner')
        .replace('tsk', 'task')
        .replace('[plna]', '[plan]')
        .replace('plna }}', 'plan }}')
        .replace(/\n/g, '\r\n'),
    );
  });

  it('with --dry-run prints the diff and writes nothing', () => {
    const folder = workspaceWith({ 'a.playbook.yml': MISTAKES });
    const result = run(['check', '--fix', '--dry-run'], folder);
    expect(result.stdout).toContain(
      [
        '--- a.playbook.yml',
        '+++ a.playbook.yml (fixed)',
        '@@ -5,9 +5,9 @@',
        ' steps:',
        '   plan:',
        '-    role: planer',
        '-    prompt: Plan ${{ inputs.tsk }}',
        '+    role: planner',
        '+    prompt: Plan ${{ inputs.task }}',
      ].join('\n'),
    );
    expect(result.stdout).toContain('would fix 4 problems in 1 file (--dry-run: nothing written)\n');
    expect(readFileSync(join(folder, 'a.playbook.yml'), 'utf8')).toBe(MISTAKES);
  });

  it('keeps JSON output parseable: what it fixed goes to standard error', () => {
    const folder = workspaceWith({ 'a.playbook.yml': MISTAKES });
    writeFileSync(
      join(folder, 'b.playbook.yml'),
      'version: 1\ntitle: B\nsteps:\n  x:\n    role: implementer\n    prompt: ${{ inputs.nope }}\n',
    );
    const result = run(['check', '--fix', '--format', 'json'], folder);
    expect(result.stderr).toContain('fixed 4 problems in 1 file');
    const diagnostics = JSON.parse(result.stdout) as { code: string; file: string }[];
    expect(diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual(['b.playbook.yml PB202']);
    expect(result.code).toBe(1);
  });

  it('refuses --dry-run without --fix, and --fix with --watch', () => {
    const folder = workspaceWith({ 'a.playbook.yml': MISTAKES });
    expect(run(['check', '--dry-run'], folder)).toMatchObject({ code: 2 });
    expect(run(['check', '--fix', '--watch'], folder)).toMatchObject({ code: 2 });
  });
});
