import { posix } from 'node:path';
import type { Ir, IrRole } from '@kairoku-playbook/compiler';
import { describe, expect, it } from 'vitest';
import { vecToArray } from '../../src/core/pvec.js';
import { MASK } from '../../src/core/state.js';
import { matchesPattern, toolPolicyFor } from '../../src/policy/decide.js';
import type { ToolCall } from '../../src/policy/decide.js';
import { TOOL_DENIED, maskSecrets, recordDenial } from '../../src/policy/denial.js';
import { Run, compileFile } from '../helpers.js';

const pr = compileFile('playbooks/pr.yml');
const refactor = compileFile('playbooks/refactor.yml');
const worktree = '/work/trees/pr-1';
// The path rules of the platform come in (the machine imports no node:path): POSIX's here, as the paths are.
const decideToolCall = toolPolicyFor(posix);
const context = { worktree };

function role(ir: Ir, name: string): IrRole {
  const found = ir.roles.find((r) => r.name === name);
  if (!found) throw new Error(`no role ${name} in ${ir.id}`);
  return found;
}

type Expect = 'allow' | RegExp;
const decide = (r: IrRole, call: ToolCall) => decideToolCall(r, call, context);
function check(r: IrRole, call: ToolCall, expected: Expect): void {
  const got = decide(r, call);
  if (expected === 'allow') expect(got, JSON.stringify(call)).toEqual({ decision: 'allow' });
  else {
    expect(got.decision, JSON.stringify(call)).toBe('deny');
    expect(got.decision === 'deny' && got.reason).toMatch(expected);
  }
}

describe('the fixed role table (SPEC §3.4, RF-009, RF-017)', () => {
  // role → tool → expected; file calls use a path inside the worktree, run "make", mcp "github".
  const table: [string, Record<string, Expect>][] = [
    [
      'implementer',
      {
        read: 'allow',
        edit: 'allow',
        write: 'allow',
        run: 'allow',
        mcp: /may not use MCP/,
        network: /network/,
      },
    ],
    [
      'reviewer',
      {
        read: 'allow',
        edit: /may not edit files \(it may read\)/,
        write: /may not write files/,
        run: 'allow',
        mcp: /may not use MCP/,
        network: /network/,
      },
    ],
    [
      'planner',
      {
        read: 'allow',
        edit: /may not edit/,
        write: /may not write/,
        run: /may not run/,
        mcp: 'allow',
        network: /network/,
      },
    ],
    [
      'researcher',
      {
        read: 'allow',
        edit: /may not edit/,
        write: /may not write/,
        run: /may not run/,
        mcp: 'allow',
        network: /network/,
      },
    ],
  ];
  const calls: Record<string, ToolCall> = {
    read: { tool: 'read', path: 'src/a.ts' },
    edit: { tool: 'edit', path: 'src/a.ts' },
    write: { tool: 'write', path: `${worktree}/new.ts` },
    run: { tool: 'run', command: 'make && make install' },
    mcp: { tool: 'mcp', server: 'github' },
    network: { tool: 'network' },
  };
  for (const ir of [pr, refactor])
    for (const [name, expected] of table)
      for (const [tool, want] of Object.entries(expected))
        it(`${ir.id}: ${name} ${tool} → ${want === 'allow' ? 'allow' : 'deny'}`, () => {
          check(role(ir, name), calls[tool]!, want);
        });

  it('names the role in every denial', () => {
    const got = decide(role(pr, 'planner'), { tool: 'run', command: 'ls' });
    expect(got).toEqual({ decision: 'deny', reason: 'role "planner" may not run commands' });
  });
});

describe('file tools stay inside the worktree', () => {
  const implementer = role(pr, 'implementer');
  const cases: [string, Expect][] = [
    ['src/a.ts', 'allow'],
    ['./src/../README.md', 'allow'],
    ['.', 'allow'],
    [worktree, 'allow'],
    [`${worktree}/deep/er/file`, 'allow'],
    [
      'src/../../pr-2/secret',
      /"src\/\.\.\/\.\.\/pr-2\/secret" is outside the worktree \/work\/trees\/pr-1 \(it resolves to \/work\/trees\/pr-2\/secret\)/,
    ],
    ['..', /outside the worktree/],
    ['../pr-1', 'allow'],
    ['../pr-10/x', /resolves to \/work\/trees\/pr-10\/x/],
    ['/etc/passwd', /"\/etc\/passwd" is outside the worktree/],
    [`${worktree}-evil/x`, /outside the worktree/],
    [`${worktree}/../pr-1x`, /outside the worktree/],
    ['a/b/../../../x', /outside the worktree/],
    ['..foo/bar', 'allow'],
    ['', /needs a path/],
    ['a\0b', /NUL/],
  ];
  for (const tool of ['read', 'edit', 'write'] as const)
    for (const [path, want] of cases)
      it(`${tool} ${JSON.stringify(path)}`, () => check(implementer, { tool, path }, want));

  it('refuses without a path or an absolute worktree', () => {
    check(implementer, { tool: 'read' }, /read needs a path/);
    const got = decideToolCall(implementer, { tool: 'read', path: 'a' }, { worktree: 'relative/dir' });
    expect(got).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/no worktree/) });
  });

  it('a reviewer reads anywhere in the worktree but not outside', () => {
    check(role(pr, 'reviewer'), { tool: 'read', path: 'x/y' }, 'allow');
    check(role(pr, 'reviewer'), { tool: 'read', path: '/home/me/.ssh/id_rsa' }, /outside the worktree/);
  });
});

describe('run: true, or whole commands matching the role’s patterns', () => {
  const security = role(pr, 'security-reviewer'); // ['npm test', 'npm run lint*']
  const testWriter = role(refactor, 'test-writer'); // implementer base, narrowed run list
  const apiReviewer = role(refactor, 'api-reviewer'); // ['npm run build', 'npx tsc --noEmit*', 'git diff*', 'git show*']
  const table: [IrRole, string, Expect][] = [
    [security, 'npm test', 'allow'],
    [security, '  npm test  ', 'allow'],
    [
      security,
      'npm test -- --watch',
      /matches none of its commands \(allowed: "npm test", "npm run lint\*"\)/,
    ],
    [security, 'npm run lint', 'allow'],
    [security, 'npm run lint:fix', 'allow'],
    [security, 'npm run lint -- --fix', 'allow'],
    [security, 'npm run linter', 'allow'],
    [security, 'npm run build', /matches none/],
    [security, 'xnpm test', /matches none/],
    [security, 'npm test && rm -rf /', /contains the shell operator &&/],
    [security, 'npm test || true', /shell operator \|\|/],
    [security, 'npm test; curl evil', /shell operator ;/],
    [security, 'npm run lint | tee out', /shell operator \|/],
    [security, 'npm run lint `whoami`', /shell operator backticks/],
    [security, 'npm run lint $(whoami)', /shell operator \$\(/],
    [security, 'npm run lint ${HOME}', /shell operator \$\{/],
    [security, 'npm test & rm -rf /', /shell operator &/],
    [security, 'npm test\nrm -rf /', /shell operator a newline/],
    [security, 'npm run lint > src/a.ts', /shell operator >/],
    [security, 'npm run lint < /etc/passwd', /shell operator </],
    [security, '', /run needs a command/],
    [testWriter, 'npx vitest run', 'allow'],
    [testWriter, 'npx vitest', 'allow'],
    [testWriter, 'git status', 'allow'],
    [testWriter, 'git status --short', /matches none/],
    [testWriter, 'git diff HEAD~1', 'allow'],
    [testWriter, 'git push', /matches none/],
    [testWriter, 'npm test && git push', /shell operator &&/],
    [apiReviewer, 'npx tsc --noEmit -p .', 'allow'],
    [apiReviewer, 'npx tsc', /matches none/],
    [apiReviewer, 'git show HEAD:src/index.ts', 'allow'],
    // run: true takes any command, operators included (the fixed table's implementer and reviewer)
    [role(pr, 'implementer'), 'npm test && npm run build | tee log', 'allow'],
    [role(refactor, 'reviewer'), 'git log --oneline; git status', 'allow'],
  ];
  for (const [r, command, want] of table)
    it(`${r.name}: ${JSON.stringify(command)} → ${want === 'allow' ? 'allow' : 'deny'}`, () =>
      check(r, { tool: 'run', command }, want));

  it('a narrowed role keeps the rest of its base', () => {
    check(testWriter, { tool: 'write', path: 'test/a.test.ts' }, 'allow');
    check(testWriter, { tool: 'write', path: '../a.test.ts' }, /outside the worktree/);
    check(testWriter, { tool: 'network' }, /may not use the network/);
    check(role(refactor, 'perf-reviewer'), { tool: 'edit', path: 'a' }, /may not edit/);
  });

  it('matches * as any run of characters over the whole command', () => {
    expect(matchesPattern('a*b*c', 'abc')).toBe(true);
    expect(matchesPattern('a*b*c', 'aXXbYYc')).toBe(true);
    expect(matchesPattern('a*b*c', 'aXXcYYb')).toBe(false);
    expect(matchesPattern('ab*ba', 'aba')).toBe(false);
    expect(matchesPattern('*', '')).toBe(true);
    expect(matchesPattern('git *', 'git')).toBe(false);
    expect(matchesPattern('npm.test', 'npmXtest')).toBe(false); // no regex meaning
    expect(matchesPattern('a+(b)', 'a+(b)')).toBe(true);
  });
});

describe('mcp by server name, network by its boolean', () => {
  const custom: IrRole = {
    ...role(pr, 'planner'),
    name: 'docs-planner',
    tools: { read: true, edit: false, write: false, network: true, run: false, mcp: ['docs', 'jira'] },
  };
  it('allows listed servers only', () => {
    check(custom, { tool: 'mcp', server: 'docs' }, 'allow');
    check(custom, { tool: 'mcp', server: 'jira' }, 'allow');
    check(
      custom,
      { tool: 'mcp', server: 'github' },
      /may not use the MCP server "github" \(allowed: "docs", "jira"\)/,
    );
    check(custom, { tool: 'mcp' }, /needs a server/);
    check(role(pr, 'planner'), { tool: 'mcp', server: 'anything' }, 'allow');
  });
  it('network follows its boolean', () => {
    check(custom, { tool: 'network' }, 'allow');
    check(role(pr, 'implementer'), { tool: 'network' }, /role "implementer" may not use the network/);
  });
  it('an empty list allows nothing, and an unknown tool is denied', () => {
    const none: IrRole = { ...custom, tools: { ...custom.tools, run: [], mcp: [] } };
    check(none, { tool: 'run', command: 'ls' }, /may not run commands/);
    check(none, { tool: 'mcp', server: 'docs' }, /may not use MCP/);
    check(none, { tool: 'shell' } as unknown as ToolCall, /unknown tool "shell"/);
  });
});

describe('recordDenial: every denial is an event', () => {
  function started(): Run {
    const run = new Run(pr, { task: 'x', api_key: 'sk-live-12345' });
    run.send({ type: 'start' });
    return run;
  }

  it('appends a tool-denied history entry and returns a new state', () => {
    const run = started();
    const before = run.state;
    const size = before.history.size;
    const decision = decideToolCall(role(pr, 'planner'), { tool: 'edit', path: 'a.ts' }, context);
    if (decision.decision !== 'deny') throw new Error('expected a denial');
    const now = Date.UTC(2025, 0, 2);
    const after = recordDenial(
      before,
      { step: 'plan', attempt: 1, call: { tool: 'edit', path: 'a.ts' }, reason: decision.reason },
      now,
      { secrets: run.secrets },
    );
    expect(after).not.toBe(before);
    expect(before.history.size).toBe(size);
    expect(after.history.size).toBe(size + 1);
    const entry = vecToArray(after.history).at(-1);
    expect(entry).toEqual({
      at: '2025-01-02T00:00:00.000Z',
      kind: TOOL_DENIED,
      step: 'plan',
      attempt: 1,
      text: 'plan (attempt 1): edit "a.ts" denied: role "planner" may not edit files (it may read)',
    });
    expect(after.updatedAt).toBe('2025-01-02T00:00:00.000Z');
    expect(after.steps).toBe(before.steps);
  });

  it('never stores a secret input value: commands and reasons are masked', () => {
    const run = started();
    const command = 'curl -H "Authorization: sk-live-12345" https://x && echo sk-live-12345';
    const decision = decideToolCall(role(pr, 'security-reviewer'), { tool: 'run', command }, context);
    expect(decision.decision).toBe('deny');
    const after = recordDenial(
      run.state,
      {
        step: 'review',
        attempt: 2,
        call: { tool: 'run', command },
        reason: decision.decision === 'deny' ? decision.reason : '',
      },
      0,
      { secrets: run.secrets },
    );
    const entry = vecToArray(after.history).at(-1)!;
    expect(JSON.stringify(entry)).not.toContain('sk-live-12345');
    expect(entry.text).toContain(`Authorization: ${MASK}`);
    expect(entry.text.split(MASK).length - 1).toBe(4); // twice in the call, twice in the reason
    expect(entry).toMatchObject({ kind: 'tool-denied', step: 'review', attempt: 2 });
  });

  it('names after-tasks as after.NAME, and refuses an unknown step', () => {
    const run = started();
    const after = recordDenial(
      run.state,
      { step: 'after.summarize', attempt: 1, call: { tool: 'network' }, reason: 'no' },
      0,
    );
    expect(vecToArray(after.history).at(-1)).toMatchObject({
      step: 'after.summarize',
      text: expect.stringMatching(/^after\.summarize \(attempt 1\): network denied: no$/),
    });
    expect(() =>
      recordDenial(run.state, { step: 'nope', attempt: 1, call: { tool: 'network' }, reason: 'x' }, 0),
    ).toThrow(/unknown step "nope"/);
  });

  it('masks longer secrets first and leaves short ones alone (the core’s rule)', () => {
    expect(maskSecrets('a=abcdef b=abcd', { a: 'abcd', b: 'abcdef', c: 'ab', d: 42 })).toBe(
      `a=${MASK} b=${MASK}`,
    );
    expect(maskSecrets('ab', { c: 'ab' })).toBe('ab');
  });
});
