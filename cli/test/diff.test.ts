import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { complete } from '../src/commands/completion.js';
import { DIFF_HELP } from '../src/commands/diff.js';
import { runMain } from './in-process.js';
import { runCli, tempDir } from '../../test/kit/index.js';

const PR = `version: 1
title: Implement and ship
inputs:
  task: { type: string }
roles:
  implementer:
    tools: { run: ["npm test"] }
steps:
  implement:
    role: implementer
    prompt: 'Do \${{ inputs.task }}'
  qa:
    needs: implement
    run: [npm test]
    outcomes:
      fail: { loop: implement, max: 2 }
  ship:
    needs: qa
    gate: { title: Ship it? }
  push:
    needs: ship
    run: [git push]
`;

/** PR with every step, role and input renamed and keys reordered. */
const PR_RENAMED = `title: Implement and ship
version: 1
inputs:
  what: { type: string }
roles:
  coder:
    base: implementer
    tools: { run: ["npm test"] }
steps:
  push-it:
    run: [git push]
    needs: approve
  approve:
    gate: { title: Ship it? }
    needs: tests
  tests:
    outcomes:
      fail: { max: 2, loop: code }
    run: [npm test]
    needs: code
  code:
    prompt: 'Do \${{ inputs.what }}'
    role: coder
`;

const ANSIBLE = `- hosts: all\n  tasks: []\n`;

let repo: string;

function git(...args: string[]): string {
  const result = spawnSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** Writes files (null removes one) and commits them; returns the commit. */
function commit(files: Record<string, string | null>, message: string): string {
  for (const [path, text] of Object.entries(files)) {
    const full = join(repo, path);
    if (text === null) rmSync(full);
    else {
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, text);
    }
  }
  git('add', '-A');
  git('commit', '-qm', message);
  return git('rev-parse', 'HEAD');
}

let base: string;
let renamed: string;
let widened: string;
let narrowed: string;
let broken: string;

beforeAll(() => {
  repo = tempDir('kp-diff-');
  git('init', '-q');
  base = commit(
    {
      'playbooks/pr.yml': PR,
      'playbooks/site.yml': ANSIBLE,
      'playbooks/pr.test.yml': 'steps: {}\n',
      'ops/deploy.playbook.yml': PR.replace('Implement and ship', 'Deploy'),
      'ci/flow.yml': PR,
    },
    'base',
  );
  renamed = commit({ 'playbooks/pr.yml': PR_RENAMED }, 'rename everything');
  widened = commit(
    {
      'playbooks/pr.yml': PR_RENAMED.replace('max: 2', 'max: 5').replace('needs: approve', 'needs: tests'),
      'playbooks/new.yml': PR.replace('Implement and ship', 'New'),
      'ops/deploy.playbook.yml': null,
    },
    'widen',
  );
  narrowed = commit({ 'playbooks/pr.yml': PR_RENAMED.replace('max: 2', 'max: 1') }, 'narrow');
  broken = commit({ 'playbooks/pr.yml': PR.replace('needs: qa', 'needs: qq') }, 'break');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

describe('kairoku-playbook diff', () => {
  it('a rename-only commit changes nothing', () => {
    expect(runMain(['diff', base, renamed], repo)).toEqual({
      code: 0,
      stdout: 'no change to what the 2 playbooks may do\n',
      stderr: '',
    });
  });

  it('compares every discovered playbook between two revisions: changed, added, removed', () => {
    const result = runMain(['diff', renamed, widened], repo);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'ops/deploy.playbook.yml (removed)\n  narrowed  playbook deploy removed\n\n',
    );
    expect(result.stdout).toContain('playbooks/new.yml (added)\n  widened   playbook new added\n');
    expect(result.stdout).toContain(
      'playbooks/pr.yml\n  widened   step tests outcome fail loop max raised: 2 → 5\n  widened   gate approve no longer comes before push-it\n',
    );
    expect(result.stdout).not.toContain('site.yml'); // Ansible's, not ours
    expect(result.stdout).not.toContain('pr.test.yml');
    expect(result.stdout).not.toContain('ci/flow.yml'); // not discovered without PATH
  });

  it('--fail-on widened exits 1 when something widened, 0 when it only narrowed', () => {
    expect(runMain(['diff', renamed, widened, '--fail-on', 'widened'], repo).code).toBe(1);
    const narrow = runMain(['diff', widened, narrowed, 'playbooks/pr.yml', '--fail-on', 'widened'], repo);
    expect(narrow.stdout).toBe(
      'playbooks/pr.yml\n  narrowed  step tests outcome fail loop max lowered: 5 → 1\n  narrowed  gate approve now comes before push-it\n  narrowed  step push-it no longer reaches outside its worktree ungated\n  narrowed  max agent turns 6 → 2: step tests outcome fail loop max lowered: 5 → 1\n\n0 widened, 4 narrowed, 0 changed in 1 of 1 playbook\n',
    );
    expect(narrow.code).toBe(0);
    expect(runMain(['diff', widened, narrowed, 'playbooks/pr.yml', '--fail-on', 'any'], repo).code).toBe(1);
    expect(runMain(['diff', base, renamed, '--fail-on', 'any'], repo).code).toBe(0);
  });

  it('a PATH is read from both revisions, even one discovery would not find', () => {
    const result = runMain(['diff', base, renamed, 'ci/flow.yml', 'playbooks'], repo);
    expect(result.stdout).toBe('no change to what the 2 playbooks may do\n');
    const sub = runMain(['diff', base, 'HEAD', 'flow.yml'], join(repo, 'ci'));
    expect(sub.stdout).toBe('no change to what the playbook may do\n');
  });

  it('JSON and Markdown', () => {
    const json = JSON.parse(
      runMain(['diff', renamed, widened, 'playbooks/pr.yml', '--format', 'json'], repo).stdout,
    );
    expect(json).toMatchObject({
      version: 1,
      base: renamed,
      head: widened,
      summary: { widened: 4, narrowed: 0, changed: 0 },
      playbooks: [
        {
          path: 'playbooks/pr.yml',
          status: 'changed',
          changes: [
            { kind: 'loop-max', direction: 'widened', before: 2, after: 5 },
            {
              kind: 'gate-bypassed',
              direction: 'widened',
              subject: { type: 'step', name: 'approve' },
              steps: ['push-it'],
            },
            // approval dominance (PB700): the path that now reaches push-it with no gate approving
            {
              kind: 'ungated-path',
              direction: 'widened',
              subject: { type: 'step', name: 'push-it' },
              steps: ['code', 'tests', 'push-it'],
            },
            // the worst case of a run: the raised loop maximum lets a run take more agent turns
            {
              kind: 'bound',
              direction: 'widened',
              subject: { type: 'playbook', name: 'pr' },
              message: 'max agent turns 3 → 6: step tests outcome fail loop max raised: 2 → 5',
              before: 3,
              after: 6,
            },
          ],
        },
      ],
    });
    const markdown = runMain(
      ['diff', renamed, widened, 'playbooks/pr.yml', '--format', 'markdown'],
      repo,
    ).stdout;
    expect(markdown).toBe(
      [
        `### Playbook policy diff: \`${renamed.slice(0, 12)}\` → \`${widened.slice(0, 12)}\``,
        '',
        '**4 widened, 0 narrowed, 0 changed in 1 of 1 playbook**',
        '',
        '#### `playbooks/pr.yml`',
        '',
        '| | change |',
        '| --- | --- |',
        '| 🔺 widened | step tests outcome fail loop max raised: 2 → 5 |',
        '| 🔺 widened | gate approve no longer comes before push-it |',
        '| 🔺 widened | step push-it can reach outside its worktree with no gate approved before it: code → tests → push-it |',
        '| 🔺 widened | max agent turns 3 → 6: step tests outcome fail loop max raised: 2 → 5 |',
        '',
      ].join('\n'),
    );
  });

  it('judges each revision by its own .kairoku/policy.yml: a policy that gates more opens ungated paths', () => {
    const gated = commit(
      {
        '.kairoku/policy.yml': 'gated:\n  - "npm test*"\n',
        'playbooks/pr.yml': PR_RENAMED.replace('max: 2', 'max: 1'), // as in `narrowed`
      },
      'gate npm test',
    );
    try {
      const result = runMain(['diff', narrowed, gated, 'playbooks/pr.yml'], repo);
      expect(result).toEqual({
        code: 0,
        stdout: [
          'playbooks/pr.yml',
          '  widened   step tests can reach outside its worktree with no gate approved before it: code → tests',
          '  widened   step code can reach outside its worktree with no gate approved before it: code',
          '',
          '2 widened, 0 narrowed, 0 changed in 1 of 1 playbook',
          '',
        ].join('\n'),
        stderr: '',
      });
    } finally {
      commit({ '.kairoku/policy.yml': null }, 'drop the policy'); // the tests after read the working tree
    }
  });

  it('a version with errors: says first that it does not check, then its diagnostics on standard error, exit 1', () => {
    const result = runMain(['diff', narrowed, broken, 'playbooks/pr.yml'], repo);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(`^playbooks/pr\\.yml in ${broken} does not check \\(1 error\\), so it is not compared:\n`),
    );
    expect(result.stderr).toContain('playbooks/pr.yml:18:12: error PB200 unknown step "qq" in needs');
    // not "no playbook in …": the playbook is there, it does not check
    expect(result.stdout).toBe('not compared: playbooks/pr.yml does not check\n');
  });

  it('two files, HEAD with an error: says so before its errors, and the JSON lists it under unchecked', () => {
    writeFileSync(join(repo, 'a.yml'), PR);
    writeFileSync(join(repo, 'b.yml'), PR.replace('needs: qa', 'needs: qq'));
    try {
      const text = runMain(['diff', 'a.yml', 'b.yml'], repo);
      expect(text.code).toBe(1);
      expect(text.stdout).toBe('not compared: b.yml does not check\n');
      const [notice, diagnostic] = text.stderr.split('\n');
      expect(notice).toBe('b.yml does not check (1 error), so it is not compared:');
      expect(diagnostic).toBe('b.yml:18:12: error PB200 unknown step "qq" in needs; did you mean "qa"?');
      const json = runMain(['diff', 'a.yml', 'b.yml', '--format', 'json'], repo);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({
        playbooks: [],
        unchecked: [
          {
            path: 'b.yml',
            side: 'head',
            errors: [{ file: 'b.yml', line: 18, column: 12, code: 'PB200', severity: 'error' }],
          },
        ],
      });
      // a diff where every version checks has no `unchecked`
      expect(
        JSON.parse(runMain(['diff', 'a.yml', 'a.yml', '--format', 'json'], repo).stdout),
      ).not.toHaveProperty('unchecked');
    } finally {
      rmSync(join(repo, 'a.yml'));
      rmSync(join(repo, 'b.yml'));
    }
  });

  it('a revision without playbooks compares none', () => {
    const empty = git('hash-object', '-t', 'tree', '-w', '/dev/null');
    const commitOfEmpty = git('commit-tree', empty, '-m', 'empty');
    expect(runMain(['diff', commitOfEmpty, commitOfEmpty], repo)).toEqual({
      code: 0,
      stdout: `no playbook in ${commitOfEmpty} or ${commitOfEmpty}\n`,
      stderr: '',
    });
  });

  it('two files', () => {
    writeFileSync(join(repo, 'a.yml'), PR);
    writeFileSync(
      join(repo, 'b.yml'),
      PR.replace('run: [npm test]\n    outcomes', 'run: [npm test, npm publish]\n    outcomes'),
    );
    try {
      expect(runMain(['diff', 'a.yml', 'b.yml'], repo)).toEqual({
        code: 0,
        stdout:
          'a.yml → b.yml\n  widened   step qa runs new commands: "npm publish"\n  widened   step qa can reach outside its worktree with no gate approved before it: implement → qa\n\n2 widened, 0 narrowed, 0 changed in 1 of 1 playbook\n',
        stderr: '',
      });
    } finally {
      rmSync(join(repo, 'a.yml'));
      rmSync(join(repo, 'b.yml'));
    }
  });

  it('refuses what is neither files nor revisions, with exit 2', () => {
    expect(runMain(['diff', 'nope', 'HEAD'], repo)).toMatchObject({ code: 2, stdout: '' });
    expect(runMain(['diff', 'nope', 'HEAD'], repo).stderr).toContain(
      '"nope" is neither a playbook file nor a git revision',
    );
    expect(runMain(['diff', 'HEAD'], repo)).toMatchObject({ code: 2 });
    expect(runMain(['diff', base, 'HEAD', 'missing/x.yml'], repo).stderr).toContain(
      'missing/x.yml holds no playbook',
    );
    expect(runMain(['diff', 'HEAD', 'HEAD', '--format', 'html'], repo).code).toBe(2);
    const outside = tempDir('kp-diff-none-');
    try {
      expect(runMain(['diff', 'main', 'HEAD'], outside).stderr).toContain('not in a git repository');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('help and completion know it', () => {
    expect(runMain(['help', 'diff'])).toEqual({ code: 0, stdout: `${DIFF_HELP}\n`, stderr: '' });
    expect(runMain(['--help']).stdout).toContain('  diff BASE HEAD ');
    expect(complete(['di'])).toEqual(['diff']);
    expect(complete(['diff', '--format', ''])).toEqual(['text', 'json', 'markdown']);
    expect(complete(['diff', '--fail-on', ''])).toEqual(['widened', 'any']);
  });

  it('runs as the built command, git and all', () => {
    const result = runCli(['diff', renamed, widened, '--fail-on', 'widened'], { cwd: repo });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('8 widened, 2 narrowed, 0 changed in 3 of 3 playbooks');
  });
});
