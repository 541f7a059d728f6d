import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkIr } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { runMain as run } from './in-process.js';
import { CLI, runCli, tempDir } from '../../test/kit/index.js';

const repo = new URL('../../', import.meta.url).pathname;

function workspace(files: Record<string, string>): string {
  const root = tempDir('kp-cli-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const CLEAN = 'version: 1\ntitle: Clean\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n';
const UNUSED_INPUT =
  'version: 1\ntitle: Warn\ninputs:\n  spare: { type: string, default: x }\nsteps:\n  only:\n    role: implementer\n    prompt: Do it.\n';
const BROKEN =
  'version: 1\ntitle: Broken\nsteps:\n  only:\n    needs: [nowhere]\n    role: implementer\n    prompt: Do it.\n';

describe('kairoku-playbook check', () => {
  it('discovers playbooks as SPEC §2 says and checks them clean', () => {
    const root = workspace({
      'a.playbook.yml': CLEAN,
      'playbooks/b.yml': CLEAN.replace('Clean', 'B'),
      '.kairoku/playbooks/c.yaml': CLEAN.replace('Clean', 'C'),
      '.paseo/playbooks/d.yml': CLEAN.replace('Clean', 'D'),
      // a playbook test: checked against playbooks/b.yml, not as a playbook
      'playbooks/b.test.yml': 'name: b runs\n',
      'other/e.yml': 'not: a playbook',
      'node_modules/x/f.playbook.yml': 'broken: [',
    });
    const result = run(['check'], root);
    expect(result).toEqual({ code: 0, stdout: 'no problems in 5 files\n', stderr: '' });
  });

  it('exits 1 with errors and prints file:line:col with a code frame', () => {
    const root = workspace({ 'x.playbook.yml': BROKEN });
    const result = run(['check'], root);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('x.playbook.yml:5:13: error PB200 unknown step "nowhere" in needs');
    expect(result.stdout).toContain('    needs: [nowhere]');
    expect(result.stdout).toMatch(/\^{7}/);
  });

  it('prints the stable JSON of SPEC §7', () => {
    const root = workspace({ 'x.playbook.yml': BROKEN });
    const result = run(['check', '--format', 'json'], root);
    expect(JSON.parse(result.stdout)).toEqual([
      {
        file: 'x.playbook.yml',
        line: 5,
        column: 13,
        endLine: 5,
        endColumn: 20,
        severity: 'error',
        code: 'PB200',
        message: 'unknown step "nowhere" in needs',
      },
    ]);
  });

  it('prints SARIF and GitHub annotations', () => {
    const root = workspace({ 'x.playbook.yml': BROKEN });
    const sarif = JSON.parse(run(['check', '--format=sarif'], root).stdout);
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0].results[0]).toMatchObject({ ruleId: 'PB200', level: 'error' });
    expect(run(['check', '--format', 'github'], root).stdout).toMatch(
      /^::error file=x\.playbook\.yml,line=5,col=13,endLine=5,endColumn=20,title=PB200::unknown step/,
    );
  });

  it('lets warnings pass unless --max-warnings is exceeded', () => {
    const root = workspace({ 'w.playbook.yml': UNUSED_INPUT });
    expect(run(['check'], root).code).toBe(0);
    expect(run(['check', '--max-warnings', '1'], root).code).toBe(0);
    expect(run(['check', '--max-warnings', '0'], root).code).toBe(1);
  });

  it('checks files and folders given as arguments, as one workspace (PB110 across files)', () => {
    const root = workspace({ 'one/x.playbook.yml': CLEAN, 'two/x.playbook.yml': CLEAN });
    const result = run(['check', 'one', 'two/x.playbook.yml', '--format', 'json'], root);
    expect(JSON.parse(result.stdout).map((d: { code: string }) => d.code)).toEqual(['PB110']);
  });

  it('refuses a binary file with one diagnostic', () => {
    const root = workspace({});
    writeFileSync(join(root, 'bin.playbook.yml'), Buffer.from([0x76, 0x00, 0xff]));
    const result = run(['check', '--format', 'json'], root);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)[0]).toMatchObject({
      code: 'PB100',
      message: expect.stringContaining('binary'),
    });
  });

  it('places the PB100 of a file that is not UTF-8 on the bad byte, in every format', () => {
    const root = workspace({});
    // "version: 1\ntitle: é" with a lone continuation byte on line 3, column 9
    const bytes = Buffer.concat([Buffer.from('version: 1\ntitle: \u00e9\nsteps: x'), Buffer.from([0x80])]);
    writeFileSync(join(root, 'bad.playbook.yml'), bytes);
    const json = run(['check', '--format', 'json'], root);
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ code: 'PB100', line: 3, column: 9, endLine: 3, endColumn: 10 }),
    ]);
    expect(JSON.parse(json.stdout)[0].message).toContain('line 3, column 9');
    expect(run(['check', '--format', 'github'], root).stdout).toContain('line=3,col=9,');
    expect(run(['check'], root).stdout).toContain('bad.playbook.yml:3:9: error PB100');
  });

  it('answers usage and I/O errors with one line and exit 2', () => {
    expect(run(['check', 'no/such/file.yml'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'kairoku-playbook: no such file or folder: no/such/file.yml\n',
    });
    expect(run(['check', '--frmat', 'json'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'kairoku-playbook: unknown option --frmat\n',
    });
    expect(run(['check', '--format', 'xml']).stderr).toBe(
      'kairoku-playbook: --format must be one of text, json, sarif, github, not "xml"\n',
    );
    expect(run(['check', '--max-warnings', 'many']).code).toBe(2);
    expect(run(['nope']).stderr).toBe(
      'kairoku-playbook: unknown command "nope" (kairoku-playbook help lists them)\n',
    );
    expect(run(['compile']).code).toBe(2);
    expect(run(['compile', 'missing.yml']).stderr).toBe('kairoku-playbook: no such file: missing.yml\n');
  });

  it('has --help for every command', () => {
    for (const command of ['check', 'compile', 'graph']) {
      const result = run([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: kairoku-playbook ${command}`));
    }
    expect(run(['--help']).stdout).toContain('Commands:');
  });
});

describe('kairoku-playbook compile and graph', () => {
  it('prints the IR, or writes it with -o', () => {
    const root = workspace({ 'x.playbook.yml': CLEAN });
    const printed = run(['compile', 'x.playbook.yml'], root);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toMatchObject({
      ir: 1,
      id: 'x',
      steps: [{ name: 'only', kind: 'agent' }],
      // the bounds of a run, from the explorer
      bounds: { explored: true, agentTurns: 1, gateDecisions: 0, units: [{ name: 'only', maxAttempts: 1 }] },
    });
    // and the IR with its bounds is one the IR schema and checks accept
    expect(checkIr(JSON.parse(printed.stdout))).toMatchObject({ ok: true });
    expect(run(['compile', 'x.playbook.yml', '-o', 'x.ir.json'], root)).toMatchObject({
      code: 0,
      stdout: '',
    });
    expect(readFileSync(join(root, 'x.ir.json'), 'utf8')).toBe(printed.stdout);
  });

  it('prints diagnostics to stderr and exits 1 for a playbook with errors', () => {
    const root = workspace({ 'x.playbook.yml': BROKEN });
    const result = run(['compile', 'x.playbook.yml'], root);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('PB200');
  });

  it('draws the graph as text, mermaid and dot', () => {
    const text = run(['graph', 'playbooks/pr.yml']).stdout;
    expect(text).toContain('  0  plan [agent · planner]');
    expect(text).toContain('⟲ fail → implement (max 3, then fail)');
    expect(run(['graph', 'playbooks/pr.yml', '--format', 'mermaid']).stdout).toContain(
      's_qa -. "fail ×3" .-> s_implement',
    );
    expect(run(['graph', 'playbooks/pr.yml', '--format', 'dot']).stdout).toContain(
      '"qa" -> "implement" [style=dashed',
    );
  });
});

describe('the bundled binary', () => {
  it('is built by `npm run build` and checks the sample playbooks clean', () => {
    expect(existsSync(CLI), 'run npm run build first').toBe(true);
    const result = runCli(['check', 'playbooks'], { cwd: repo });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^no problems in \d+ files\n$/);
  });
});

describe('checking nothing', () => {
  it('is a usage error, so a wrong path in CI does not pass silently', () => {
    const root = workspace({ 'notes/readme.yml': 'a: 1' });
    expect(run(['check'], root)).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'kairoku-playbook: no playbooks found in this folder (*.playbook.yml, or *.yml directly in a playbooks/ folder)\n',
    });
    expect(run(['check', 'notes'], root).code).toBe(2);
  });
});

describe('graph labels', () => {
  it('never carry a raw line break into mermaid or dot', () => {
    const mermaid = run(['graph', 'playbooks/pr.yml', '--format', 'mermaid']).stdout;
    expect(mermaid).toContain('s_plan["plan<br>agent · planner"]');
    const dot = run(['graph', 'playbooks/pr.yml', '--format', 'dot']).stdout;
    expect(dot).toContain('"plan" [label="plan\\nagent · planner"];');
  });
});
