import { describe, expect, it } from 'vitest';
import { diffPlaybooks, toolChanges } from '../src/index.js';
import type { Ir, PolicyChange } from '../src/index.js';
import { irOf, renameEverything } from './diff-support.js';

const BASE = `version: 1
title: Implement, review and ship
inputs:
  task: { type: string }
  token: { type: string, secret: true, required: false }
  strict: { type: boolean, default: false }
roles:
  implementer:
    tools: { run: ["npm test", "npm run lint*"] }
  auditor:
    base: reviewer
    instructions: You review for security problems only.
limits:
  timeout: 2h
steps:
  plan:
    role: planner
    prompt: 'Plan: \${{ inputs.task }}'
    outputs: { plan: string }
  implement:
    needs: plan
    role: implementer
    prompt: 'Do \${{ steps.plan.outputs.plan }}'
    timeout: 30m
  qa:
    needs: implement
    run: [npm test]
    retries: 1
    outcomes:
      fail: { loop: implement, max: 2 }
  review:
    needs: qa
    role: auditor
    prompt: Review.
  ship:
    needs: review
    gate:
      title: Ship it?
  push:
    needs: ship
    run: [git push]
    env: { TOKEN: '\${{ inputs.token }}' }
after:
  summarize:
    role: researcher
    prompt: Summarise.
`;

/** The changes of an edit of BASE, as [direction, kind, message]. */
function changesOf(edit: (text: string) => string, base = BASE): [string, string, string][] {
  const head = edit(base);
  expect(head, 'the edit changes the text').not.toBe(base);
  return diffPlaybooks(irOf(base), irOf(head)).map((c: PolicyChange) => [c.direction, c.kind, c.message]);
}

const replace = (from: string, to: string) => (text: string) => {
  expect(text).toContain(from);
  return text.replace(from, to);
};

describe('diffPlaybooks', () => {
  it('reports nothing for the same playbook, renamed and reordered', () => {
    expect(diffPlaybooks(irOf(BASE), irOf(BASE))).toEqual([]);
    expect(diffPlaybooks(irOf(BASE), irOf(renameEverything(BASE)))).toEqual([]);
  });

  it('tool grants of a role: widened and narrowed, with the steps that use it', () => {
    const head = BASE.replace(
      'tools: { run: ["npm test", "npm run lint*"] }',
      'tools: { run: ["npm test", "git push*"] }',
    );
    const changes = diffPlaybooks(irOf(BASE), irOf(head));
    expect(changes.map((c) => [c.direction, c.kind, c.message, c.steps])).toEqual([
      ['widened', 'tool', 'role implementer may run "git push*" (run commands added)', ['implement']],
      ['narrowed', 'tool', 'role implementer may no longer run "npm run lint*"', ['implement']],
    ]);
    expect(
      changesOf(replace('tools: { run: ["npm test", "npm run lint*"] }', 'tools: { run: true }')),
    ).toEqual([
      ['widened', 'tool', 'role implementer may run any commands (was only "npm test", "npm run lint*")'],
    ]);
    expect(
      changesOf(
        replace('tools: { run: ["npm test", "npm run lint*"] }', 'tools: { run: false, write: false }'),
      ),
    ).toEqual([
      ['narrowed', 'tool', 'role implementer may no longer write'],
      ['narrowed', 'tool', 'role implementer may no longer run (was "npm test", "npm run lint*")'],
    ]);
  });

  it('compares every tool of two policies, the network and MCP servers too', () => {
    const none = { read: true, edit: false, write: false, network: false, run: false, mcp: false };
    expect(
      toolChanges(none, { ...none, network: true, mcp: ['github'] }).map((c) => [c.direction, c.message]),
    ).toEqual([
      ['widened', 'may reach the network (network granted)'],
      ['widened', 'may mcp "github" (mcp granted)'],
    ]);
    expect(
      toolChanges({ ...none, mcp: true }, { ...none, mcp: ['github'] }).map((c) => [c.direction, c.message]),
    ).toEqual([['narrowed', 'may only mcp "github" (was any)']]);
    expect(
      toolChanges({ ...none, mcp: ['a'] }, { ...none, mcp: ['a', 'b'] }).map((c) => c.direction),
    ).toEqual(['widened']);
  });

  it('a step moved to a role with more power, and a role changing base', () => {
    expect(
      changesOf(
        replace('    role: auditor\n    prompt: Review.', '    role: implementer\n    prompt: Review.'),
      ),
    ).toEqual([
      [
        'widened',
        'step-role',
        'step review runs in role implementer instead of auditor: may edit (edit granted); may write (write granted); may only run "npm test", "npm run lint*" (was any)',
      ],
    ]);
    expect(changesOf(replace('base: reviewer', 'base: implementer'))).toEqual([
      [
        'widened',
        'role-base',
        'role auditor changes base: reviewer → implementer (its steps may now change the worktree)',
      ],
      ['widened', 'tool', 'role auditor may edit (edit granted)'],
      ['widened', 'tool', 'role auditor may write (write granted)'],
    ]);
  });

  it('a role renamed and changed at once is still one role: matched by the steps that run in it', () => {
    const head = BASE.replace(
      '  implementer:\n    tools: { run: ["npm test", "npm run lint*"] }',
      '  coder:\n    base: implementer\n    tools: { run: ["npm test"] }',
    ).replace('    role: implementer\n', '    role: coder\n');
    expect(
      diffPlaybooks(irOf(BASE), irOf(head)).map((c) => [
        c.direction,
        c.kind,
        c.message,
        c.subject.baseName,
        c.steps,
      ]),
    ).toEqual([
      ['narrowed', 'tool', 'role coder may no longer run "npm run lint*"', 'implementer', ['implement']],
    ]);
  });

  it('check commands added and removed', () => {
    expect(changesOf(replace('run: [npm test]', 'run: [npm test, npm publish]'))).toEqual([
      ['widened', 'commands', 'step qa runs new commands: "npm publish"'],
    ]);
    expect(changesOf(replace('run: [git push]', 'run: [git status]'))).toEqual([
      ['widened', 'commands', 'step push runs new commands: "git status"'],
      ['narrowed', 'commands', 'step push no longer runs "git push"'],
    ]);
  });

  it('gates removed, added, made optional, bypassed', () => {
    expect(
      changesOf((t) =>
        t
          .replace('  ship:\n    needs: review\n    gate:\n      title: Ship it?\n', '')
          .replace('needs: ship', 'needs: review'),
      ),
    ).toEqual([['widened', 'gate-removed', 'gate ship removed']]);
    expect(
      changesOf(
        replace(
          '    gate:\n      title: Ship it?\n',
          '    when: inputs.strict\n    gate:\n      title: Ship it?\n',
        ),
      ),
    ).toEqual([
      [
        'widened',
        'gate-condition',
        'gate ship made optional: skipped unless inputs.strict (the steps after it still run)',
      ],
    ]);
    expect(
      changesOf(replace('    needs: ship\n    run: [git push]', '    needs: review\n    run: [git push]')),
    ).toEqual([['widened', 'gate-bypassed', 'gate ship no longer comes before push']]);
    expect(
      changesOf(
        replace('    needs: qa\n    role: auditor', '    needs: [qa, ship]\n    role: auditor'),
        BASE.replace('  ship:\n    needs: review', '  ship:\n    needs: qa'),
      ),
    ).toEqual([['narrowed', 'gate-guards', 'gate ship now comes before review']]);
    // the reverse of removing a gate
    const withoutGate = BASE.replace(
      '  ship:\n    needs: review\n    gate:\n      title: Ship it?\n',
      '',
    ).replace('needs: ship', 'needs: review');
    expect(diffPlaybooks(irOf(withoutGate), irOf(BASE)).map((c) => [c.direction, c.kind, c.message])).toEqual(
      [['narrowed', 'gate-added', 'gate ship added']],
    );
  });

  it('gate choices that now lead on', () => {
    expect(
      changesOf(
        replace(
          '      title: Ship it?\n',
          '      title: Ship it?\n      choices: { approve: next, reject: next }\n',
        ),
      ),
    ).toEqual([['widened', 'gate-choice', 'gate ship choice reject: fail → next']]);
    expect(
      changesOf(
        replace(
          '      title: Ship it?\n',
          '      title: Ship it?\n      choices: { approve: fail, reject: fail }\n',
        ),
      ),
    ).toEqual([['narrowed', 'gate-choice', 'gate ship choice approve: next → fail']]);
  });

  it('loop maxima, retries and timeouts, raised and lowered', () => {
    expect(changesOf(replace('max: 2', 'max: 5'))).toEqual([
      ['widened', 'loop-max', 'step qa outcome fail loop max raised: 2 → 5'],
    ]);
    expect(changesOf(replace('max: 2', 'max: 1'))).toEqual([
      ['narrowed', 'loop-max', 'step qa outcome fail loop max lowered: 2 → 1'],
    ]);
    expect(changesOf(replace('retries: 1', 'retries: 3'))).toEqual([
      ['widened', 'retries', 'step qa retries raised: 1 → 3'],
    ]);
    expect(changesOf(replace('retries: 1', 'retries: 0'))).toEqual([
      ['narrowed', 'retries', 'step qa retries lowered: 1 → 0'],
    ]);
    expect(changesOf(replace('timeout: 30m', 'timeout: 2h'))).toEqual([
      ['widened', 'timeout', 'step implement timeout lengthened: 30m → 2h'],
    ]);
    expect(changesOf(replace('timeout: 30m', 'timeout: 10m'))).toEqual([
      ['narrowed', 'timeout', 'step implement timeout shortened: 30m → 10m'],
    ]);
    expect(changesOf(replace('limits:\n  timeout: 2h\n', ''))).toEqual([
      ['widened', 'timeout', "the run's timeout lengthened: 2h → none"],
    ]);
    expect(
      changesOf(
        replace('fail: { loop: implement, max: 2 }', 'fail: { loop: implement, max: 2, exhausted: next }'),
      ),
    ).toEqual([
      [
        'widened',
        'outcome',
        'step qa outcome fail: loop implement (max 2, then fail) → loop implement (max 2, then next)',
      ],
    ]);
    expect(changesOf(replace('fail: { loop: implement, max: 2 }', 'fail: fail'))).toEqual([
      ['narrowed', 'outcome', 'step qa outcome fail: loop implement (max 2, then fail) → fail'],
    ]);
  });

  it('the workspace: a worktree of its own left for the checkout itself widens', () => {
    expect(changesOf((t) => t.replace('limits:', 'workspace: new-worktree\nlimits:'))).toEqual([
      ['narrowed', 'workspace', "the run's workspace: current → new-worktree"],
    ]);
    const isolated = BASE.replace('limits:', 'workspace: new-worktree\nlimits:');
    expect(changesOf(() => BASE, isolated)).toEqual([
      ['widened', 'workspace', "the run's workspace: new-worktree → current"],
    ]);
  });

  it('secret inputs added, unmarked and exposed to a step', () => {
    expect(
      changesOf(
        replace(
          '  strict: { type: boolean, default: false }',
          '  strict: { type: boolean, default: false }\n  npm: { type: string, secret: true, required: false }',
        ),
      ),
    ).toEqual([['widened', 'secret-input', 'secret input npm added']]);
    expect(
      changesOf(
        replace(
          'token: { type: string, secret: true, required: false }',
          'token: { type: string, required: false }',
        ),
      ),
    ).toEqual([
      [
        'widened',
        'secret-input',
        'input token is no longer secret: its value is shown in logs and saved in run files',
      ],
    ]);
    expect(
      changesOf(replace('run: [npm test]', "run: [npm test]\n    env: { T: '${{ inputs.token }}' }")),
    ).toEqual([['widened', 'secret-exposed', 'step qa now reads secret input token']]);
    expect(changesOf(replace("    env: { TOKEN: '${{ inputs.token }}' }\n", ''))).toEqual([
      ['narrowed', 'secret-exposed', 'step push no longer reads secret input token'],
    ]);
  });

  it('steps added and removed, after-tasks too', () => {
    expect(
      changesOf(replace('after:\n', '  publish:\n    needs: push\n    run: [npm publish]\nafter:\n')),
    ).toEqual([['widened', 'step-added', 'step publish added (check: runs "npm publish")']]);
    expect(
      changesOf(replace('after:\n  summarize:\n    role: researcher\n    prompt: Summarise.\n', '')),
    ).toEqual([['narrowed', 'step-removed', 'after-task summarize removed']]);
    expect(
      changesOf(replace('after:\n', 'after:\n  tidy:\n    role: implementer\n    prompt: Tidy up.\n')),
    ).toEqual([
      [
        'widened',
        'step-added',
        'after-task tidy added (agent: role implementer, may read, edit, write, run [npm test, npm run lint*])',
      ],
    ]);
  });

  it('a step renamed and changed at once is still one step', () => {
    const head = renameEverything(BASE).replace('max: 2', 'max: 4');
    const changes = diffPlaybooks(irOf(BASE), irOf(head));
    expect(changes.map((c) => [c.direction, c.kind, c.subject.baseName])).toEqual([
      ['widened', 'loop-max', 'qa'],
    ]);
  });

  it('a first step renamed and changed at once is still one step: placed by the steps that need it', () => {
    // plan needs nothing: its place is that implement (matched by its content) needs it.
    const head = renameEverything(
      replace('outputs: { plan: string }', 'outputs: { plan: string }\n    timeout: 2h')(BASE),
    );
    const changes = diffPlaybooks(irOf(BASE), irOf(head));
    expect(changes.map((c) => [c.direction, c.kind, c.subject.baseName])).toEqual([
      ['widened', 'timeout', 'plan'],
    ]);
  });

  it('a playbook added or removed', () => {
    const added = diffPlaybooks(undefined, irOf(BASE));
    expect(added[0]).toMatchObject({ kind: 'playbook-added', direction: 'widened' });
    expect(added.filter((c) => c.kind === 'step-added').map((c) => c.subject.name)).toEqual([
      'plan',
      'implement',
      'qa',
      'review',
      'push',
      'summarize',
    ]);
    expect(added.filter((c) => c.kind === 'gate-added').map((c) => c.subject.name)).toEqual(['ship']);
    expect(
      added.filter((c) => c.kind === 'secret-input' || c.kind === 'secret-exposed').map((c) => c.message),
    ).toEqual(['secret input token added', 'step push now reads secret input token']);
    const removed = diffPlaybooks(irOf(BASE), undefined);
    expect(removed.map((c) => [c.direction, c.kind])).toEqual([['narrowed', 'playbook-removed']]);
  });

  it('new PB700 paths plug in through ungatedSteps', () => {
    // a stand-in for the approval analysis: check steps that push, ungated when no gate is among their ancestors
    const ungatedSteps = (ir: ReturnType<typeof irOf>) =>
      ir.steps
        .filter((s) => s.run.some((r) => r.parts.some((p) => 'text' in p && p.text.startsWith('git push'))))
        .filter((s) => !ir.steps.some((g) => g.kind === 'gate' && s.needs.includes(g.index)))
        .map((s) => ({ step: s.name, path: [s.name] }));
    const head = BASE.replace(
      '    needs: ship\n    run: [git push]',
      '    needs: review\n    run: [git push]',
    );
    const changes = diffPlaybooks(irOf(BASE), irOf(head), { ungatedSteps });
    expect(changes.map((c) => [c.direction, c.kind, c.message])).toEqual([
      ['widened', 'gate-bypassed', 'gate ship no longer comes before push'],
      [
        'widened',
        'ungated-path',
        'step push can reach outside its worktree with no gate approved before it: push',
      ],
    ]);
    expect(diffPlaybooks(irOf(head), irOf(BASE), { ungatedSteps }).map((c) => [c.direction, c.kind])).toEqual(
      [
        ['narrowed', 'gate-guards'],
        ['narrowed', 'ungated-path'],
      ],
    );
  });
});

describe('bound changes (through the DiffOptions.bounds seam)', () => {
  const playbook = (max: number) => `version: 1
id: b
title: B
steps:
  a: { role: implementer, prompt: A }
  t:
    needs: a
    run: npm test
    outcomes: { pass: next, fail: { loop: a, max: ${max} } }
`;
  // a stand-in for the explorer: one turn of a per round
  const bounds = (ir: Ir) => {
    const loop = ir.steps[1]!.outcomes.find((o) => o.name === 'fail')!.transition;
    const turns = 1 + (loop.kind === 'loop' ? loop.max : 0);
    return { agentTurns: turns, gateDecisions: 0, explored: true };
  };

  it('a raised loop maximum widens the bound, naming it; lowered, it narrows; none without the seam', () => {
    const raised = diffPlaybooks(irOf(playbook(2)), irOf(playbook(8)), { bounds });
    expect(raised.filter((c) => c.kind === 'bound')).toEqual([
      {
        kind: 'bound',
        direction: 'widened',
        subject: { type: 'playbook', name: 'b' },
        message: 'max agent turns 3 → 9: step t outcome fail loop max raised: 2 → 8',
        before: 3,
        after: 9,
      },
    ]);
    const lowered = diffPlaybooks(irOf(playbook(8)), irOf(playbook(2)), { bounds });
    expect(lowered.find((c) => c.kind === 'bound')).toMatchObject({
      direction: 'narrowed',
      before: 9,
      after: 3,
    });
    expect(diffPlaybooks(irOf(playbook(2)), irOf(playbook(8))).some((c) => c.kind === 'bound')).toBe(false);
  });
});
