/**
 * One engine: what `check` says of a playbook test's YAML, shape and names, `test` says too, in the same
 * words, and runs nothing (it used to read the file with another YAML reader: a lone `~` ran as an empty
 * scenario, duplicate keys failed with the parser's own message).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, workspaceWith } from '../../test/kit/index.js';

const PLAYBOOK = readFileSync(join(REPO, 'playbooks/pr.yml'), 'utf8');

const CASES: Record<string, string> = {
  'null document': '~\n',
  'duplicate keys':
    'name: a\nname: b\ninputs: { task: x }\nsteps:\n  plan: { outcome: done }\n  plan: { outcome: done }\n',
  'unknown step': 'inputs: { task: x }\nsteps:\n  plann: { outcome: done }\n',
  'unclosed list': 'inputs: { task: x }\nsteps: [\n',
  'wrong shape': 'inputs: { task: x }\nsteps:\n  plan: done\n',
};

/** check's error lines, `file:line:col: error CODE message`. */
function errorLinesOf(text: string): string[] {
  return text.split('\n').filter((line) => /: error PB\d+ /.test(line));
}

describe('test says what check says of a test file', () => {
  for (const [name, test] of Object.entries(CASES)) {
    it(name, () => {
      const root = workspaceWith({ 'playbooks/pr.yml': PLAYBOOK, 'playbooks/pr.test.yml': test });
      const checked = runCli(['check', 'playbooks'], { cwd: root });
      const tested = runCli(['test', 'playbooks'], { cwd: root });
      expect(checked.status).toBe(1);
      expect(tested.status).toBe(1);
      const said = errorLinesOf(checked.stdout);
      expect(said.length).toBeGreaterThan(0);
      expect(errorLinesOf(tested.stdout).map((line) => line.trim())).toEqual(said);
      expect(tested.stdout).toContain('playbooks/pr.test.yml has errors:');
    });
  }

  it('runs a test file check finds nothing wrong with', () => {
    const root = workspaceWith({
      'playbooks/pr.yml': PLAYBOOK,
      'playbooks/pr.test.yml': readFileSync(join(REPO, 'playbooks/pr.test.yml'), 'utf8'),
    });
    expect(runCli(['check', 'playbooks'], { cwd: root }).status).toBe(0);
    const tested = runCli(['test', 'playbooks'], { cwd: root });
    expect(tested.stdout).toContain('1 passed, 0 failed');
    expect(tested.status).toBe(0);
  });
});
