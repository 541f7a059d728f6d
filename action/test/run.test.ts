/**
 * The GitHub Action, run as a runner runs a composite action: action.yml's step command, with the
 * environment a runner sets (GITHUB_WORKSPACE, GITHUB_ACTION_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
 * RUNNER_TEMP) and the INPUT_* variables action.yml maps from `with:`, on a repository made with git.
 * GITHUB_ACTION_PATH is this repository, built (`npm run build`); the other two ways the action gets
 * the CLI (building a fresh checkout, installing a tarball) are run by scripts/test-distribution.sh.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tempDir } from '../../test/kit/temp.js';

const repo = new URL('../../', import.meta.url).pathname;

interface ActionInput {
  description: string;
  required?: boolean;
  default?: string;
}
interface Action {
  inputs: Record<string, ActionInput>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; shell: string; run: string; env: Record<string, string> }[] };
}

const action = parse(readFileSync(join(repo, 'action.yml'), 'utf8')) as Action;
const script = readFileSync(join(repo, 'action/run.mjs'), 'utf8');

const CLEAN = 'version: 1\ntitle: Clean\nsteps:\n  only:\n    run: npm test\n';
const BROKEN = 'version: 1\ntitle: Broken\nsteps:\n  only:\n    needs: [nowhere]\n    run: npm test\n';
const WARNS =
  'version: 1\ntitle: Warns\ninputs:\n  spare: { type: string, default: x }\nsteps:\n  only:\n    run: npm test\n';

/** A repository made with git, with the files given, committed. */
function repository(files: Record<string, string>): string {
  const root = tempDir('kp-action-repo-');
  execFileSync('git', ['init', '-q', root]);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  execFileSync('git', ['add', '.'], { cwd: root });
  execFileSync(
    'git',
    ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', 'commit', '-qm', 'playbooks'],
    {
      cwd: root,
    },
  );
  return root;
}

/** `${{ inputs.NAME }}` in the step's env, as the runner expands it from `with:` and the defaults. */
function stepEnvironment(inputs: Record<string, string>): Record<string, string> {
  const step = action.runs.steps[0]!;
  return Object.fromEntries(
    Object.entries(step.env).map(([name, value]) => [
      name,
      value.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, input: string) => {
        if (!(input in action.inputs)) throw new Error(`action.yml reads an undeclared input ${input}`);
        return inputs[input] ?? action.inputs[input]!.default ?? '';
      }),
    ]),
  );
}

function runAction(
  workspace: string,
  inputs: Record<string, string> = {},
  extra: Record<string, string> = {},
) {
  const runner = tempDir('kp-action-runner-');
  const temp = join(runner, 'temp');
  mkdirSync(temp);
  const output = join(runner, 'output');
  const summary = join(runner, 'summary.md');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? runner,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_ACTION_PATH: repo,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: summary,
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
    ...stepEnvironment(inputs),
    ...extra,
  };
  const step = action.runs.steps[0]!;
  // A composite step's `run` in `shell: bash`, in the workspace, as the runner starts it.
  const result = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
    cwd: workspace,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    outputs: readOutputs(readFileSync(output, 'utf8')),
    summary: readFileSync(summary, 'utf8'),
    temp: readdirSync(temp),
  };
}

/** GITHUB_OUTPUT's `name=value` and `name<<DELIMITER` … `DELIMITER` entries. */
function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('='))
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return outputs;
}

describe('action.yml', () => {
  it('is a composite action whose one step runs action/run.mjs with every input', () => {
    expect(action.runs.using).toBe('composite');
    expect(action.runs.steps).toHaveLength(1);
    const step = action.runs.steps[0]!;
    expect(step).toMatchObject({
      id: 'check',
      shell: 'bash',
      run: 'node "$GITHUB_ACTION_PATH/action/run.mjs"',
    });
    for (const name of Object.keys(action.inputs)) {
      const variable = `INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
      expect(step.env[variable], name).toBe(`\${{ inputs.${name} }}`);
      expect(script, `run.mjs reads ${name}`).toContain(`input('${name}')`);
      expect(action.inputs[name]!.description.length, name).toBeGreaterThan(20);
    }
    expect(Object.keys(step.env)).toHaveLength(Object.keys(action.inputs).length);
    for (const [name, output] of Object.entries(action.outputs)) {
      expect(output.value).toBe(`\${{ steps.check.outputs.${name} }}`);
      expect(script, `run.mjs sets ${name}`).toContain(`setOutput('${name}'`);
    }
  });
});

describe('the example workflows', () => {
  /** Every step of the docs' YAML examples that uses this action. */
  function uses(doc: string): { with?: Record<string, unknown> }[] {
    const markdown = readFileSync(join(repo, doc), 'utf8');
    const found: { with?: Record<string, unknown> }[] = [];
    for (const [, block] of markdown.matchAll(/```yaml[^\n]*\n([\s\S]*?)\n```/g)) {
      if (!block!.includes('uses: kairoku/kairoku-playbook@')) continue;
      const visit = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(visit);
        else if (value && typeof value === 'object') {
          const step = value as { uses?: unknown; with?: Record<string, unknown> };
          if (typeof step.uses === 'string' && step.uses.startsWith('kairoku/kairoku-playbook@'))
            found.push(step);
          Object.values(value).forEach(visit);
        }
      };
      visit(parse(block!));
    }
    return found;
  }

  it('give the action only inputs it has, and read only outputs it sets', () => {
    const steps = [...uses('docs/ci.md'), ...uses('README.md')];
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const step of steps)
      for (const input of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs)).toContain(input);
    const ci = readFileSync(join(repo, 'docs/ci.md'), 'utf8');
    const read = [...ci.matchAll(/steps\.playbooks\.outputs\.([\w-]+)/g)].map((m) => m[1]!);
    expect(read.length).toBeGreaterThan(0);
    for (const output of read) expect(Object.keys(action.outputs)).toContain(output);
  });
});

describe('the action, run with the variables a runner sets', { timeout: 60_000 }, () => {
  it('annotates, fails on errors, writes SARIF relative to the repository, and reports counts', () => {
    const workspace = repository({
      'playbooks/broken.yml': BROKEN,
      'playbooks/warns.yml': WARNS,
      'team/clean.playbook.yml': CLEAN,
    });
    const result = runAction(workspace, { 'sarif-file': 'results/playbooks.sarif' });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stdout).toContain(
      '::error file=playbooks/broken.yml,line=5,col=13,endLine=5,endColumn=20,title=PB200::unknown step "nowhere" in needs',
    );
    expect(result.stdout).toMatch(/^::warning file=playbooks\/warns\.yml,.*title=PB900::/m);
    const sarifFile = join(workspace, 'results/playbooks.sarif');
    expect(result.outputs).toEqual({ errors: '1', warnings: '1', notes: '0', 'sarif-file': sarifFile });
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8'));
    expect(sarif.runs[0].originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: `file://${workspace}/` } });
    expect(
      sarif.runs[0].results.map(
        (r: { locations: { physicalLocation: unknown }[] }) => r.locations[0]!.physicalLocation,
      ),
    ).toEqual([
      {
        artifactLocation: { uri: 'playbooks/broken.yml', uriBaseId: '%SRCROOT%' },
        region: { startLine: 5, startColumn: 13, endLine: 5, endColumn: 20 },
      },
      {
        artifactLocation: { uri: 'playbooks/warns.yml', uriBaseId: '%SRCROOT%' },
        region: expect.any(Object),
      },
    ]);
    expect(result.summary).toContain(
      '### kairoku-playbook check\n\n**1 error**, 1 warning, 0 notes (kairoku-playbook 0.1.0)\n',
    );
    expect(result.summary).toContain(
      '| error | `playbooks/broken.yml:5:13` | [PB200](https://github.com/kairoku/kairoku-playbook/blob/v0.1.0/docs/diagnostics.md#pb200-unknown-step-in-needs) | unknown step "nowhere" in needs |',
    );
    expect(result.temp).toEqual([]);
  });

  it('passes a clean repository, setting no sarif-file without the input', () => {
    const workspace = repository({
      'playbooks/clean.yml': CLEAN,
      'b.playbook.yml': CLEAN.replace('Clean', 'B'),
    });
    const result = runAction(workspace);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.outputs).toEqual({ errors: '0', warnings: '0', notes: '0' });
    expect(result.summary).toBe(
      '### kairoku-playbook check\n\nno errors, 0 warnings, 0 notes (kairoku-playbook 0.1.0)\n',
    );
    expect(result.temp).toEqual([]);
  });

  it('fails on warnings over max-warnings', () => {
    const workspace = repository({ 'playbooks/warns.yml': WARNS });
    expect(runAction(workspace).status).toBe(0);
    const strict = runAction(workspace, { 'max-warnings': '0' });
    expect(strict.status).toBe(1);
    expect(strict.outputs.warnings).toBe('1');
  });

  it('checks only the paths given, one per line or on one line', () => {
    const workspace = repository({
      'playbooks/broken.yml': BROKEN,
      'a/one.playbook.yml': CLEAN,
      'b/two.playbook.yml': CLEAN.replace('Clean', 'Two'),
    });
    expect(runAction(workspace, { paths: 'a\nb/two.playbook.yml\n' }).status).toBe(0);
    expect(runAction(workspace, { paths: 'a b' }).status).toBe(0);
    expect(runAction(workspace, { paths: 'a playbooks' }).status).toBe(1);
  });

  it('says what is wrong, as an error annotation and exit 2, when it cannot check', () => {
    const workspace = repository({ 'notes/readme.yml': 'a: 1\n' });
    const nothing = runAction(workspace);
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toContain('kairoku-playbook: no playbooks found in this folder');
    expect(nothing.stdout).toContain(
      '::error title=kairoku-playbook::kairoku-playbook check could not check (exit 2)',
    );

    const wrong = runAction(workspace, { 'max-warnings': 'none' });
    expect(wrong.status).toBe(2);
    expect(wrong.stdout).toBe('::error title=kairoku-playbook::max-warnings: a whole number, not "none"\n');

    const version = runAction(workspace, { version: 'latest; rm -rf /' });
    expect(version.status).toBe(2);
    expect(version.stdout).toContain('version: "latest; rm -rf /" is not a version, range or dist-tag');

    const outside = runAction(workspace, {}, { GITHUB_WORKSPACE: '' });
    expect(outside.status).toBe(2);
    expect(outside.stdout).toContain('GITHUB_WORKSPACE is not set');
  });

  it('with diff-base, compares the playbooks from the merge base: widened fails, a rename reports nothing', () => {
    const PLAYBOOK =
      'version: 1\ntitle: Ship\nsteps:\n  build:\n    run: npm test\n    retries: 1\n  approve:\n    needs: [build]\n    gate: { title: Ship it? }\n';
    const workspace = repository({ 'playbooks/ship.yml': PLAYBOOK });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], {
        cwd: workspace,
        encoding: 'utf8',
      }).trim();
    const base = git('rev-parse', 'HEAD');
    // A rename changes nothing the playbook can do.
    writeFileSync(join(workspace, 'playbooks/ship.yml'), PLAYBOOK.replace(/build/g, 'compile'));
    git('commit', '-qam', 'rename');
    const renameCommit = git('rev-parse', 'HEAD');
    const renamed = runAction(workspace, { 'diff-base': base });
    expect(renamed.status, renamed.stdout + renamed.stderr).toBe(0);
    expect(renamed.outputs.widened).toBe('0');
    expect(renamed.summary).toContain('### kairoku-playbook check');

    // More retries widen it: the step fails, the summary and the diff file say why.
    writeFileSync(
      join(workspace, 'playbooks/ship.yml'),
      PLAYBOOK.replace(/build/g, 'compile').replace('retries: 1', 'retries: 5'),
    );
    git('commit', '-qam', 'more retries');
    const widened = runAction(workspace, { 'diff-base': renameCommit });
    expect(widened.status, widened.stdout + widened.stderr).toBe(1);
    expect(Number(widened.outputs.widened)).toBeGreaterThan(0);
    const markdown = readFileSync(widened.outputs['diff-file']!, 'utf8');
    expect(markdown).toMatch(/retries/i);
    expect(widened.summary).toContain(markdown.trimEnd());
    // 'never': the same diff, and the step passes.
    expect(runAction(workspace, { 'diff-base': renameCommit, 'diff-fail-on': 'never' }).status).toBe(0);
    // A base the checkout does not have: said, with what to do.
    const missing = runAction(workspace, { 'diff-base': '0123456789abcdef0123456789abcdef01234567' });
    expect(missing.status).toBe(2);
    expect(missing.stdout).toContain('fetch-depth: 0');
  }, 240_000);

  it('installs the npm package when version names one (a missing tarball fails, saying so)', () => {
    const workspace = repository({ 'playbooks/clean.yml': CLEAN });
    const result = runAction(
      workspace,
      { version: 'missing/kairoku-playbook-9.9.9.tgz' },
      { npm_config_offline: 'true' },
    );
    expect(result.status).toBe(2);
    expect(result.stdout).toContain('::group::Install ');
    expect(result.stdout).toMatch(/::error title=kairoku-playbook::npm install .* failed/);
    expect(existsSync(join(workspace, 'node_modules'))).toBe(false);
  });
});
