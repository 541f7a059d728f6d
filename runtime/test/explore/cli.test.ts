import { describe, expect, it } from 'vitest';
import { repo } from '../helpers.js';
import { runCli, workspaceWith } from '../../../test/kit/index.js';

/** Runs the built CLI (`npm run build` first) as a user would: a process, no colour. */
function cli(args: string[], cwd = repo) {
  const run = runCli(args, { cwd, env: { NO_COLOR: '1', FORCE_COLOR: undefined } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const head = 'version: 1\ntitle: Test\n';
const NEVER = `${head}steps:
  a:
    role: implementer
    prompt: A
    outcomes: { done: end, failed: fail }
  b: { needs: a, role: implementer, prompt: B }
`;
const CLEAN = `${head}steps:
  a: { role: implementer, prompt: A }
`;

describe('kairoku-playbook explore', () => {
  it('prints the states, the most attempts per step, the worst-case turns and how runs end', () => {
    const { code, stdout, stderr } = cli(['explore', 'playbooks/pr.yml']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout)
      .toBe(`playbooks/pr.yml: explored 238 states (746 transitions, 2 input variants of strict, reviewers)

  step             kind   most attempts
  plan             agent  1
  implement        agent  9
  qa               check  9
  review           agent  6
  ship             gate   3
  after.summarize  agent  1

most agent turns in one run: 17
bounds: at most 17 agent turns, 3 gate decisions, 4h of agents and checks
every run ends: completed or failed
no step that can never run (PB310), no run that can get stuck (PB311)
`);
  });

  it('prints PB310 with its code frame; a warning does not fail the command', () => {
    const dir = workspaceWith({ 'never.playbook.yml': NEVER });
    const { code, stdout } = cli(['explore', 'never.playbook.yml'], dir);
    expect(code).toBe(0);
    expect(stdout).toContain('  b     agent  0 (never runs)\n');
    expect(stdout).toContain(
      'never.playbook.yml:8:3: warning PB310 step "b" can never run: no run goes on past "a" (it never completes, or completing ends the run)\n' +
        ' 8 |   b: { needs: a, role: implementer, prompt: B }\n' +
        '   |   ^\n' +
        '  related: never.playbook.yml:4:3: "a" is declared here: every run fails, ends or waits at it\n',
    );
    expect(stdout).toMatch(/1 warning in 1 file\n$/);
  });

  it('says when the budget runs out: the numbers are then lower bounds', () => {
    const { code, stdout } = cli(['explore', '--max-states', '20', 'playbooks/pr.yml']);
    expect(code).toBe(0);
    expect(stdout).toContain('playbooks/pr.yml: explored 20 states (');
    expect(stdout).toContain('; the budget of 20 states ran out\n');
    expect(stdout).toContain('the numbers below are lower bounds, and PB310 is not reported');
    expect(stdout).toMatch(/ {2}implement {8}agent {2}at least \d+\n/);
    expect(stdout).toContain('no run that can get stuck (PB311) in the states explored\n');
  });

  it('refuses a playbook with errors (exit 1, diagnostics on standard error)', () => {
    const dir = workspaceWith({
      'broken.playbook.yml': `${head}steps:\n  a: { needs: zz, role: implementer, prompt: A }\n`,
    });
    const { code, stdout, stderr } = cli(['explore', 'broken.playbook.yml'], dir);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('error PB200');
  });

  it('usage errors', () => {
    expect(cli(['explore'])).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: explore takes exactly one FILE (see kairoku-playbook explore --help)\n',
    });
    expect(cli(['explore', '--max-states', '0', 'playbooks/pr.yml'])).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: --max-states takes a whole number of states, at least 1, not "0"\n',
    });
    expect(cli(['explore', '--max-seconds', 'soon', 'playbooks/pr.yml'])).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: --max-seconds takes a whole number of seconds, at least 1, not "soon"\n',
    });
    expect(cli(['explore', 'missing.yml']).code).toBe(2);
    const help = cli(['explore', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: kairoku-playbook explore FILE [--max-states N] [--max-seconds N]');
    expect(cli(['--help']).stdout).toContain('  explore FILE ');
  });
});

describe('kairoku-playbook check --explore', () => {
  it('adds PB310 for the playbooks that compile, in every format', () => {
    const dir = workspaceWith({
      'never.playbook.yml': NEVER,
      'clean.playbook.yml': CLEAN,
      'broken.playbook.yml': `${head}steps:\n  a: { needs: zz, role: implementer, prompt: A }\n`,
    });
    const plain = cli(['check', '--format', 'json'], dir);
    const explored = cli(['check', '--explore', '--format', 'json'], dir);
    const codes = (out: string) =>
      (JSON.parse(out) as { file: string; code: string; line: number }[]).map(
        (d) => `${d.file}:${d.line} ${d.code}`,
      );
    expect(codes(plain.stdout)).toEqual(['broken.playbook.yml:4 PB200']);
    expect(codes(explored.stdout)).toEqual(['broken.playbook.yml:4 PB200', 'never.playbook.yml:8 PB310']);
    expect(explored.code).toBe(1);
    const github = cli(['check', '--explore', '--format', 'github', 'never.playbook.yml'], dir);
    expect(github.code).toBe(0);
    expect(github.stdout).toContain('::warning file=never.playbook.yml,line=8,');
    expect(cli(['check', '--explore', '--max-warnings', '0', 'never.playbook.yml'], dir).code).toBe(1);
    const sarif = JSON.parse(
      cli(['check', '--explore', '--format', 'sarif', 'never.playbook.yml'], dir).stdout,
    );
    expect(sarif.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toEqual(['PB310']);
  });

  it('honours `# playbook-ignore PB310`, and then the comment silences something (no PB903)', () => {
    const text = NEVER.replace('  b:', '  # playbook-ignore PB310 b comes back in the next release\n  b:');
    const dir = workspaceWith({ 'never.playbook.yml': text });
    const explored = cli(['check', '--explore', '--format', 'json'], dir);
    expect(JSON.parse(explored.stdout)).toEqual([]);
    expect(explored.code).toBe(0);
    // Without --explore nothing looked for PB310, so the comment is not called useless either.
    const plain = JSON.parse(cli(['check', '--format', 'json'], dir).stdout) as { code: string }[];
    expect(plain.map((d) => d.code)).toEqual([]);
  });

  it('finds nothing in the samples', () => {
    // (refactor.yml too, but it takes seconds: explore.test.ts explores it)
    const samples = ['bugfix', 'pr', 'release', 'research'].map((name) => `playbooks/${name}.yml`);
    const { code, stdout, stderr } = cli(['check', '--explore', ...samples]);
    expect(stderr).toBe('');
    // and the bounds of each (machine/test/explore/bounds.test.ts proves them)
    expect(stdout).toBe(
      [
        'no problems in 4 files',
        'playbooks/bugfix.yml: bounds: at most 16 agent turns, 3 gate decisions, 3h of agents and checks',
        'playbooks/pr.yml: bounds: at most 17 agent turns, 3 gate decisions, 4h of agents and checks',
        'playbooks/release.yml: bounds: at most 9 agent turns, 10 gate decisions, 6h of agents and checks',
        'playbooks/research.yml: bounds: at most 6 agent turns (at most 3 one after another), 0 gate decisions, 2h of agents and checks',
        '',
      ].join('\n'),
    );
    expect(code).toBe(0);
  });

  it('--max-agent-turns N: PB312 when a run can take more, on the title; it implies --explore', () => {
    const over = cli(['check', '--max-agent-turns', '16', '--format', 'json', 'playbooks/pr.yml']);
    expect(over.code).toBe(1);
    const found = JSON.parse(over.stdout) as { code: string; line: number; message: string }[];
    expect(found.map((d) => [d.code, d.line])).toEqual([['PB312', 4]]);
    expect(found[0]!.message).toContain('more agent turns than --max-agent-turns 16: at most 17 agent turns');
    expect(cli(['check', '--max-agent-turns', '17', 'playbooks/pr.yml']).code).toBe(0);
    expect(cli(['check', '--max-agent-turns', 'many', 'playbooks/pr.yml']).code).toBe(2);
  });
});
