/**
 * explain, schema and --version, and the links SARIF gives each code. The links point at GitHub, which
 * a test here cannot reach: what is proved is that each one names docs/diagnostics.md at the release
 * tag with an anchor GitHub makes for that file (its heading-anchor rules, applied to the file here).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODES, IR_VERSION } from '@kairoku-playbook/compiler';
import { ASSETS } from '../src/assets.js';
import {
  diagnosticAnchor,
  githubAnchor,
  helpUri,
  referenceSection,
  type Code,
} from '../src/diagnostics-reference.js';
import { runMain as run } from './in-process.js';
import { REPOSITORY_URL, VERSION } from '../src/version.js';
import type { SarifLog } from '../src/format/sarif.js';
import { tempDir } from '../../test/kit/index.js';

const repo = new URL('../../', import.meta.url).pathname;
const codes = Object.keys(CODES) as Code[];
const reference = readFileSync(join(repo, 'docs/diagnostics.md'), 'utf8');

/**
 * The anchors GitHub gives a Markdown file: one per heading (outside code blocks, inline code and
 * emphasis marks gone, a repeated anchor numbered -1, -2, …) and the ids of HTML anchors.
 */
function githubAnchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = githubAnchor(heading.replace(/[`*]/g, ''));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const match of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  }
  return anchors;
}

describe('helpUri', { timeout: 60_000 }, () => {
  it('makes the anchors GitHub makes (github-slugger)', () => {
    expect(githubAnchor('PB406 unterminated ${{')).toBe('pb406-unterminated-');
    expect(githubAnchor('PB602 after-task with needs, or invalid trigger/on')).toBe(
      'pb602-after-task-with-needs-or-invalid-triggeron',
    );
    expect(githubAnchor('PB107 a step needs exactly one of prompt, run, gate')).toBe(
      'pb107-a-step-needs-exactly-one-of-prompt-run-gate',
    );
    expect(githubAnchor('Überblick – Teil 1')).toBe('überblick--teil-1');
    expect(githubAnchor('snake_case and 1.2.3')).toBe('snake_case-and-123');
  });

  it("points every code at its section of docs/diagnostics.md at this version's tag", () => {
    const anchors = githubAnchorsOf(reference);
    const missing = codes.filter((code) => !anchors.has(diagnosticAnchor(code)));
    expect(missing).toEqual([]);
    for (const code of codes) {
      expect(helpUri(code)).toBe(
        `${REPOSITORY_URL}/blob/v${VERSION}/docs/diagnostics.md#${diagnosticAnchor(code)}`,
      );
    }
    expect(helpUri('PB205')).toBe(
      'https://github.com/kairoku/kairoku-playbook/blob/v0.1.0/docs/diagnostics.md#pb205-referenced-step-is-not-an-ancestor',
    );
    expect(ASSETS.diagnosticsReference).toBe('docs/diagnostics.md');
  });

  it('is what check --format sarif gives each rule', () => {
    const root = tempDir('kp-ref-');
    writeFileSync(join(root, 'a.playbook.yml'), 'version: 1\ntitle: A\nsteps:\n  s:\n    run: x\n');
    const sarif = JSON.parse(run(['check', '--format', 'sarif'], root).stdout) as SarifLog;
    const rules = sarif.runs[0]!.tool.driver.rules;
    expect(rules.map((rule) => rule.helpUri)).toEqual(codes.map((code) => helpUri(code)));
    expect(sarif.runs[0]!.tool.driver.informationUri).toBe(REPOSITORY_URL);
  });
});

describe('kairoku-playbook explain', { timeout: 60_000 }, () => {
  it("prints a code's section of the reference and where it is online", () => {
    const result = run(['explain', 'PB205']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^## PB205 referenced step is not an ancestor\n\n/);
    expect(result.stdout).toContain('docs.yml:11:46: error PB205 step "implement" is not an ancestor');
    expect(result.stdout).toContain('**Fix:** add the step to `needs`');
    expect(result.stdout).not.toContain('<a id=');
    expect(result.stdout).not.toContain('PB206');
    expect(result.stdout.endsWith(`\n\nOnline: ${helpUri('PB205')}\n`)).toBe(true);
  });

  it('takes the code in any case, or its number', () => {
    const expected = run(['explain', 'PB900']).stdout;
    expect(run(['explain', 'pb900']).stdout).toBe(expected);
    expect(run(['explain', '900']).stdout).toBe(expected);
  });

  it('has a section for every code, each with its own heading only', () => {
    for (const code of codes) {
      const section = referenceSection(reference, code)!;
      expect(section, code).toMatch(new RegExp(`^## ${code} `));
      expect(section.match(/^## /gm), code).toHaveLength(1);
      expect(run(['explain', code]).code).toBe(0);
    }
  });

  it("makes the reference's own links absolute, at the release tag", () => {
    const section = run(['explain', 'PB208']).stdout;
    expect(section).toContain(
      '(https://github.com/kairoku/kairoku-playbook/blob/v0.1.0/docs/reference.md#transitions)',
    );
    expect(section).not.toMatch(/\]\((?!https:)/);
  });

  it('has --help, as schema has', () => {
    for (const command of ['explain', 'schema']) {
      const result = run([command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: kairoku-playbook ${command}`));
      expect(run(['--help']).stdout).toContain(`\n  ${command} `);
    }
  });

  it('lists every code without one', () => {
    const result = run(['explain']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter((line) => /^PB\d{3} /.test(line))).toHaveLength(codes.length);
    expect(result.stdout).toContain('PB310  warning  a step that can never run\n');
  });

  it('refuses what is not a code, with exit 2', () => {
    expect(run(['explain', 'PB291'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'kairoku-playbook: there is no code PB291 (did you mean PB201?); kairoku-playbook explain lists them all\n',
    });
    expect(run(['explain', 'E0308']).code).toBe(2);
    expect(run(['explain', 'PB200', 'PB201']).code).toBe(2);
  });
});

describe('kairoku-playbook schema', () => {
  it('prints the JSON Schema of the surface, and of the IR with --ir, as the files have them', () => {
    const surface = run(['schema']);
    expect(surface).toEqual({
      code: 0,
      stdout: readFileSync(join(repo, 'grammar/schema/playbook.schema.json'), 'utf8'),
      stderr: '',
    });
    expect(JSON.parse(surface.stdout).properties.version.const).toBe(1);
    expect(run(['schema', '--ir']).stdout).toBe(
      readFileSync(join(repo, 'compiler/schema/ir.schema.json'), 'utf8'),
    );
    expect(run(['schema', 'x']).code).toBe(2);
  });
});

describe('kairoku-playbook --version', () => {
  it('prints the versions of the CLI, the language and the IR', () => {
    const surface = JSON.parse(readFileSync(join(repo, 'grammar/schema/playbook.schema.json'), 'utf8'));
    expect(run(['--version'])).toEqual({
      code: 0,
      stdout:
        `kairoku-playbook ${VERSION}\n` +
        `playbook language: version ${surface.properties.version.const}\n` +
        `execution IR: ir ${IR_VERSION}\n`,
      stderr: '',
    });
    expect(run(['-v']).stdout).toBe(run(['--version']).stdout);
  });
});

describe('check --format sarif in a repository', { timeout: 60_000 }, () => {
  const broken = 'version: 1\ntitle: B\nsteps:\n  s:\n    needs: [nowhere]\n    run: x\n';

  function gitRepository(): string {
    const root = tempDir('kp-sarif-');
    execFileSync('git', ['init', '-q', root]);
    mkdirSync(join(root, 'team', 'playbooks'), { recursive: true });
    writeFileSync(join(root, 'team', 'playbooks', 'b.yml'), broken);
    return root;
  }

  const locationOf = (stdout: string) => {
    const run = (JSON.parse(stdout) as SarifLog).runs[0]!;
    return {
      base: run.originalUriBaseIds,
      location: run.results[0]!.locations[0]!.physicalLocation.artifactLocation,
    };
  };

  it('gives paths relative to the top of the git work tree, wherever it runs', () => {
    const root = gitRepository();
    for (const [cwd, args] of [
      [root, []],
      [join(root, 'team'), []],
      [join(root, 'team', 'playbooks'), ['b.yml']],
    ] as const) {
      const result = run(['check', '--format', 'sarif', ...args], cwd);
      expect(result.code, cwd).toBe(1);
      expect(locationOf(result.stdout), cwd).toEqual({
        base: { '%SRCROOT%': { uri: `file://${root}/` } },
        location: { uri: 'team/playbooks/b.yml', uriBaseId: '%SRCROOT%' },
      });
    }
  });

  it('takes the root from --root, and the current folder outside a work tree', () => {
    const root = gitRepository();
    const result = run(['check', '--format', 'sarif', '--root', '..'], join(root, 'team', 'playbooks'));
    expect(locationOf(result.stdout).location).toEqual({ uri: 'playbooks/b.yml', uriBaseId: '%SRCROOT%' });
    expect(run(['check', '--root', 'nowhere'], root)).toMatchObject({
      code: 2,
      stderr: 'kairoku-playbook: --root: no such folder: nowhere\n',
    });

    const plain = tempDir('kp-sarif-plain-');
    writeFileSync(join(plain, 'b.playbook.yml'), broken);
    expect(locationOf(run(['check', '--format', 'sarif'], plain).stdout)).toEqual({
      base: { '%SRCROOT%': { uri: `file://${plain}/` } },
      location: { uri: 'b.playbook.yml', uriBaseId: '%SRCROOT%' },
    });
  });
});
