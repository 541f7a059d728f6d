import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseYaml, readScenario } from '../../src/backends/scenario.js';
import { stepRun, vecToArray } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { PlaybookProtocol } from '../../src/mcp/protocol.js';
import { runSim } from '../../src/testing/sim-run.js';
import { changesSince, isWorktreeError, snapshotWorktree } from '../../src/worktree/git-snapshot.js';
import { Run, compileFile, playbook } from '../helpers.js';
import { tempDir } from '../../../test/kit/index.js';

const pr = compileFile('playbooks/pr.yml');

let root: string;
let repo: string;

beforeEach(() => {
  root = tempDir('kp-read-only-');
  repo = join(root, 'repo');
  mkdirSync(repo);
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), 'hello\n');
  writeFileSync(join(repo, 'old.txt'), 'old\n');
  writeFileSync(join(repo, '.gitignore'), 'ignored/\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function git(...args: string[]): string {
  const result = spawnSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, LANG: 'C', GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

function snapshot(dir = repo): string {
  const taken = snapshotWorktree(dir);
  if (isWorktreeError(taken)) throw new Error(taken.error);
  return taken;
}

describe('snapshotWorktree and changesSince', () => {
  it('sees nothing when nothing changed, twice in a row', () => {
    const before = snapshot();
    expect(changesSince(repo, before)).toBeUndefined();
    expect(changesSince(repo, before)).toBeUndefined();
  });

  it('names a modified tracked file', () => {
    const before = snapshot();
    writeFileSync(join(repo, 'README.md'), 'changed\n');
    expect(changesSince(repo, before)).toEqual(['README.md']);
  });

  it('names an added untracked file, also inside a new folder, but not an ignored one', () => {
    const before = snapshot();
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    writeFileSync(join(repo, 'src', 'deep', 'new.ts'), 'x\n');
    mkdirSync(join(repo, 'ignored'));
    writeFileSync(join(repo, 'ignored', 'cache'), 'x\n');
    expect(changesSince(repo, before)).toEqual(['src/deep/new.ts']);
  });

  it('names a deleted file', () => {
    const before = snapshot();
    unlinkSync(join(repo, 'old.txt'));
    expect(changesSince(repo, before)).toEqual(['old.txt']);
  });

  it('names an already-dirty file that changes again, tracked or untracked', () => {
    writeFileSync(join(repo, 'README.md'), 'dirty\n');
    writeFileSync(join(repo, 'scratch.txt'), 'one\n');
    const before = snapshot();
    expect(changesSince(repo, before)).toBeUndefined();
    writeFileSync(join(repo, 'README.md'), 'dirtier\n');
    expect(changesSince(repo, before)).toEqual(['README.md']);
    const again = snapshot();
    writeFileSync(join(repo, 'scratch.txt'), 'two\n');
    expect(changesSince(repo, again)).toEqual(['scratch.txt']);
  });

  it('names a staged change and a file put back as it was', () => {
    writeFileSync(join(repo, 'README.md'), 'dirty\n');
    const before = snapshot();
    writeFileSync(join(repo, 'README.md'), 'hello\n');
    expect(changesSince(repo, before)).toEqual(['README.md']);
    const clean = snapshot();
    writeFileSync(join(repo, 'old.txt'), 'staged\n');
    git('add', 'old.txt');
    expect(changesSince(repo, clean)).toEqual(['old.txt']);
  });

  it('names a commit: the files it changed and HEAD', () => {
    const before = snapshot();
    writeFileSync(join(repo, 'README.md'), 'committed\n');
    git('commit', '-q', '-am', 'sneaky');
    const changes = changesSince(repo, before) as string[];
    expect(changes).toContain('README.md');
    expect(changes.some((p) => p.startsWith('HEAD ('))).toBe(true);
  });

  it('works in a repository without a commit', () => {
    const fresh = join(root, 'fresh');
    mkdirSync(fresh);
    spawnSync('git', ['init', '-q'], { cwd: fresh });
    const before = snapshot(fresh);
    writeFileSync(join(fresh, 'a.txt'), 'a\n');
    expect(changesSince(fresh, before)).toEqual(['a.txt']);
  });

  it('reports a folder that is not a git worktree, or does not exist, as an error', () => {
    const plain = join(root, 'plain');
    mkdirSync(plain);
    expect(snapshotWorktree(plain)).toEqual({ error: `${plain} is not a git worktree` });
    expect(snapshotWorktree(join(root, 'missing'))).toEqual({
      error: `${join(root, 'missing')} does not exist`,
    });
    const before = snapshot();
    rmSync(join(repo, '.git'), { recursive: true, force: true });
    expect(changesSince(repo, before)).toEqual({ error: `${repo} is not a git worktree` });
  });
});

function scenario(text: string, ir: Ir = pr) {
  const parsed = parseYaml(text);
  if ('error' in parsed) throw new Error(parsed.error);
  const read = readScenario(parsed.value, ir);
  expect(read.errors).toEqual([]);
  return read.scenario;
}

const PR_SCENARIO = `
inputs: { task: add a --json flag, strict: true }
steps:
  implement: { outcome: done, outputs: { branch: feat/json } }
  review: { outcome: approved, outputs: { verdict: approve } }
`;

function simulate(
  worktree: string | undefined,
  onAgentTurn: (step: string, attempt: number) => void,
  ir: Ir = pr,
  text = PR_SCENARIO,
): RunState {
  const result = runSim({
    ir,
    scenario: scenario(text, ir),
    id: 'pr-0a0b0c',
    clock: () => Date.UTC(2025, 0, 1),
    onAgentTurn,
    ...(worktree !== undefined ? { worktree } : {}),
  });
  if (!result.ok) throw new Error(result.inputErrors.join('; '));
  expect(result.refusals).toEqual([]);
  return result.state;
}

function historyOf(state: RunState, kind: string) {
  return vecToArray(state.history).filter((h) => h.kind === kind);
}

describe('the read-only check on the sim backend (playbooks/pr.yml, review: security-reviewer)', () => {
  it('fails the attempt of a reviewer that writes a file, naming the file in the history', () => {
    const state = simulate(repo, (step) => {
      if (step === 'review') writeFileSync(join(repo, 'review-notes.md'), 'looks fine\n');
    });
    const review = stepRun(state, 'review')!;
    expect(review.status).toBe('failed');
    expect(review.attempts).toHaveLength(1);
    expect(review.attempts[0]).toMatchObject({ ended: 'read-only' });
    expect(review.attempts[0]!.outcome).toBeUndefined();
    expect(review.reason).toContain('review-notes.md');
    const violations = historyOf(state, 'read-only-violated');
    expect(violations).toEqual([
      expect.objectContaining({
        step: 'review',
        attempt: 1,
        text: 'review failed: its read-only role changed the worktree: review-notes.md',
      }),
    ]);
    expect(state.status).toBe('failed');
    expect(stepRun(state, 'ship')!.status).toBe('pending');
  });

  it('passes a reviewer that changes nothing, and an implementer that changes files', () => {
    const state = simulate(repo, (step) => {
      if (step === 'implement') {
        writeFileSync(join(repo, 'README.md'), 'implemented\n');
        writeFileSync(join(repo, 'feature.ts'), 'export {};\n');
      }
    });
    expect(state.status).toBe('completed');
    expect(stepRun(state, 'implement')!.status).toBe('completed');
    expect(stepRun(state, 'review')!.attempts.map((a) => a.outcome)).toEqual(['approved']);
    expect(historyOf(state, 'read-only-violated')).toEqual([]);
  });

  it('checks planners and researchers too (plan, after.summarize)', () => {
    const state = simulate(repo, (step) => {
      if (step === 'after.summarize') unlinkSync(join(repo, 'old.txt'));
    });
    expect(state.status).toBe('completed');
    const summarize = state.after[0]!;
    expect(summarize.status).toBe('failed');
    expect(summarize.reason).toContain('old.txt');
    expect(historyOf(state, 'read-only-violated').map((h) => h.step)).toEqual(['after.summarize']);
  });

  it('checks nothing without a worktree', () => {
    const state = simulate(undefined, (step) => {
      if (step === 'review') writeFileSync(join(repo, 'review-notes.md'), 'unchecked\n');
    });
    expect(state.status).toBe('completed');
  });

  it('fails the attempt with a clear reason when the worktree is not a git worktree', () => {
    const plain = join(root, 'plain');
    mkdirSync(plain);
    let turns = 0;
    const state = simulate(plain, () => turns++);
    const plan = stepRun(state, 'plan')!;
    expect(plan.status).toBe('failed');
    expect(plan.attempts[0]).toMatchObject({ ended: 'read-only' });
    expect(historyOf(state, 'read-only-violated')[0]!.text).toBe(
      `plan failed: cannot check the read-only role: ${plain} is not a git worktree`,
    );
    expect(state.status).toBe('failed');
    // The planner's agent never ran; the after-task (a researcher) fails the same way.
    expect(turns).toBe(0);
    expect(state.after[0]!.status).toBe('failed');
  });

  it('retries a violating attempt within retries; the next clean attempt passes', () => {
    const ir = playbook(
      `  review:
    role: rev
    retries: 1
    prompt: Review.
`,
      `roles:\n  rev:\n    base: reviewer\n`,
    );
    const state = simulate(
      repo,
      (step, attempt) => {
        if (step === 'review' && attempt === 1) writeFileSync(join(repo, 'README.md'), 'oops\n');
      },
      ir,
      '{}',
    );
    expect(state.status).toBe('completed');
    const review = stepRun(state, 'review')!;
    expect(review.attempts.map((a) => a.outcome ?? a.ended)).toEqual(['read-only', 'done']);
    expect(historyOf(state, 'step-retry')[0]!.text).toContain('README.md');
  });

  it('checks a silent agent at the end of each of its turns', () => {
    const ir = playbook(
      `  review:
    role: rev
    prompt: Review.
`,
      `roles:\n  rev:\n    base: reviewer\n`,
    );
    let turn = 0;
    const state = simulate(
      repo,
      (_step, attempt) => {
        // The first turn ends without a report and changes nothing; the reminded turn writes.
        if (attempt === 1 && turn++ === 1) writeFileSync(join(repo, 'late.txt'), 'x\n');
      },
      ir,
      'steps: { review: { silent: true } }',
    );
    const review = stepRun(state, 'review')!;
    expect(review.attempts[0]).toMatchObject({ ended: 'read-only', reminded: true });
    expect(review.reason).toContain('late.txt');
  });
});

describe('the read-only-violated event', () => {
  const ir = playbook(
    `  review:
    role: rev
    retries: 1
    prompt: Review.
  build:
    role: implementer
    prompt: Build.
`,
    `roles:\n  rev:\n    base: reviewer\n`,
  );

  it('is refused for a step whose role is not read-only', () => {
    const run = new Run(ir);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'build' });
    expect(run.refuse({ type: 'read-only-violated', step: 'build', attempt: 1, paths: ['a'] })).toBe(
      'step "build" is not read-only: its role may change the worktree',
    );
  });

  it('stops the agent, ends the attempt and retries; a stale one does nothing', () => {
    const run = new Run(ir);
    run.send({ type: 'start' });
    run.send({ type: 'start-step', step: 'review' });
    const effects = run.send({ type: 'read-only-violated', step: 'review', attempt: 1, paths: ['a.txt'] });
    expect(effects).toContainEqual({
      type: 'stop-agent',
      step: 'review',
      attempt: 1,
      reason: 'its read-only role changed the worktree: a.txt',
    });
    expect(run.status('review')).toBe('ready');
    const before = run.state;
    run.send({ type: 'read-only-violated', step: 'review', attempt: 1, paths: ['a.txt'] });
    expect(run.state).toBe(before);
  });
});

describe('the read-only check over MCP (external step agents report in later calls)', () => {
  const review = `version: 1
id: rv
title: Review only
roles:
  rev:
    base: reviewer
steps:
  review:
    role: rev
    retries: 1
    prompt: Review.
`;

  function protocol() {
    mkdirSync(join(repo, 'playbooks'));
    writeFileSync(join(repo, 'playbooks', 'rv.yml'), review);
    git('add', '.');
    git('commit', '-q', '-m', 'playbook');
    const home = join(root, 'home');
    return { home, protocol: new PlaybookProtocol({ workspace: repo, home, agents: 'external' }) };
  }

  it('drops the report of an agent that changed the worktree and fails its attempt; a clean retry passes', () => {
    const { protocol: p, home } = protocol();
    const run = p.startPlaybook({ playbook: 'rv' }).run as string;
    p.startStep({ run, step: 'review' });
    expect(readdirSync(join(home, 'read-only', run))).toEqual(['review#1.json']);
    writeFileSync(join(repo, 'README.md'), 'sneaky\n');
    const answer = p.reportStepResult({ run, step: 'review', attempt: 1, outcome: 'done' });
    expect(answer).toMatchObject({ recorded: false });
    expect(String(answer.why)).toContain('read-only role');
    const after = p.store.load(run)!;
    expect(stepRun(after, 'review')!.attempts[0]).toMatchObject({ ended: 'read-only' });
    expect(historyOf(after, 'step-retry')[0]!.text).toContain('README.md');

    // The second attempt starts from the changed worktree and changes nothing more: it passes.
    p.startStep({ run, step: 'review' });
    expect(p.reportStepResult({ run, step: 'review', attempt: 2, outcome: 'done' })).not.toHaveProperty(
      'recorded',
    );
    p.completeStep({ run, step: 'review', outcome: 'done' });
    expect(p.store.load(run)!.status).toBe('completed');
    // Snapshots are dropped with the attempts, and the run's folder when it ends.
    expect(existsSync(join(home, 'read-only', run))).toBe(false);
  });

  it('says in the history that a workspace outside git cannot be checked, and goes on', () => {
    const outside = join(root, 'plain');
    mkdirSync(join(outside, 'playbooks'), { recursive: true });
    writeFileSync(join(outside, 'playbooks', 'rv.yml'), review);
    const p = new PlaybookProtocol({ workspace: outside, home: join(root, 'home'), agents: 'external' });
    const run = p.startPlaybook({ playbook: 'rv' }).run as string;
    p.startStep({ run, step: 'review' });
    writeFileSync(join(outside, 'x.txt'), 'x\n');
    p.reportStepResult({ run, step: 'review', attempt: 1, outcome: 'done' });
    const state = p.store.load(run)!;
    expect(stepRun(state, 'review')!.status).toBe('reported');
    expect(historyOf(state, 'backend')[0]!.text).toContain('is not a git worktree');
  });

  it('keeps the snapshot when a report is refused for another reason, so the corrected one is checked', () => {
    const { protocol: p } = protocol();
    const run = p.startPlaybook({ playbook: 'rv' }).run as string;
    p.startStep({ run, step: 'review' });
    expect(() => p.reportStepResult({ run, step: 'review', attempt: 1, outcome: 'nonsense' })).toThrow(
      /no outcome "nonsense"/,
    );
    writeFileSync(join(repo, 'new.txt'), 'x\n');
    expect(p.reportStepResult({ run, step: 'review', attempt: 1, outcome: 'done' })).toMatchObject({
      recorded: false,
    });
    expect(stepRun(p.store.load(run)!, 'review')!.attempts[0]).toMatchObject({ ended: 'read-only' });
  });
});
