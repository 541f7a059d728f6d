import { describe, expect, it } from 'vitest';
import { completionsAt } from '../../../src/service/features/completion.js';
import type { CompletionEntry } from '../../../src/service/features/completion.js';
import { BASE, analyzeAt, slice } from '../../support/cursor.js';

function complete(sample: string): { entries: CompletionEntry[]; text: string } {
  const { analysis, offset } = analyzeAt(sample);
  return { entries: completionsAt(analysis, offset), text: analysis.text };
}

function labels(sample: string): string[] {
  return complete(sample).entries.map((e) => e.label);
}

/** BASE with one piece replaced (the replacement carries the cursor). */
function base(find: string, replace: string): string {
  if (!BASE.includes(find)) throw new Error(`BASE has no ${find}`);
  return BASE.replace(find, replace);
}

describe('completion inside ${{ }}', () => {
  it('offers the context roots visible in a prompt, the functions and the literals', () => {
    const result = labels(base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ <|> }}'));
    expect(result.slice(0, 4)).toEqual(['inputs', 'steps', 'run', 'loop']);
    expect(result).not.toContain('report');
    expect(result).not.toContain('gate');
    expect(result).toEqual(
      expect.arrayContaining(['contains', 'default', 'format', 'join', 'len', 'true', 'null']),
    );
  });

  it('gives each function its signature and description', () => {
    const { entries } = complete(base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ le<|> }}'));
    const len = entries.find((e) => e.label === 'len')!;
    expect(len.kind).toBe('function');
    expect(len.detail).toBe('len(value: string | list): integer');
    expect(len.documentation).toMatch(/number of characters/);
  });

  // (This asserted `report` in a gate choice's transition too, where the compiler reports PB209: a gate has
  // no report. The editor now offers what the compiler's scope provider says exists there.)
  it('offers report.* in an outcome transition, and gate.* (not report.*) in a gate choice transition', () => {
    const result = labels(base('"${{ report.summary }}"', '"${{ <|> }}"'));
    expect(result).toContain('report');
    expect(result).not.toContain('gate');
    const gate = `${BASE}  ship:
    needs: [review]
    gate:
      title: Ship?
      choices:
        revise: { comment: required, then: { loop: build, feedback: "\${{ <|> }}" } }
`;
    expect(labels(gate)).toContain('gate');
    expect(labels(gate)).not.toContain('report');
  });

  it('offers the inputs with their types after inputs.', () => {
    const { entries, text } = complete(
      base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ inputs.ta<|> }}'),
    );
    expect(entries.map((e) => [e.label, e.detail])).toEqual([
      ['task', 'string'],
      ['strict', 'boolean'],
    ]);
    expect(slice(text, entries[0]!.range)).toBe('ta');
    expect(entries[0]!.documentation).toContain('What to build');
  });

  it('offers only the steps visible from here after steps.', () => {
    expect(labels(base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ steps.<|> }}'))).toEqual(['plan']);
    expect(labels(base('Review ${{ steps.build.outputs.branch }}', 'Review ${{ steps.<|> }}'))).toEqual([
      'plan',
      'build',
      'qa',
    ]);
    // In its own transition a step sees itself.
    expect(labels(base('"${{ report.summary }}"', '"${{ steps.<|> }}"'))).toEqual([
      'plan',
      'build',
      'qa',
      'review',
    ]);
  });

  it('lets after-tasks and playbook outputs see every step', () => {
    const sample = `${BASE}outputs:
  result: \${{ steps.<|> }}
`;
    expect(labels(sample)).toEqual(['plan', 'build', 'qa', 'review']);
  });

  it('offers the fields of a step, and its outputs after outputs.', () => {
    expect(labels(base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ steps.plan.<|> }}'))).toEqual([
      'outputs',
      'outcome',
      'status',
      'summary',
      'attempt',
    ]);
    const { entries } = complete(
      base('Review ${{ steps.build.outputs.branch }}', 'Review ${{ steps.plan.outputs.<|> }}'),
    );
    expect(entries.map((e) => [e.label, e.detail])).toEqual([
      ['plan', 'string'],
      ['files', 'list<string>'],
    ]);
  });

  it("offers a check step's counts as its outputs", () => {
    expect(
      labels(base('Review ${{ steps.build.outputs.branch }}', 'Review ${{ steps.qa.outputs.<|> }}')),
    ).toEqual(['passed', 'failed', 'skipped', 'todo', 'exit_code']);
  });

  it('marks the outputs of a step that may be skipped as nullable', () => {
    const sample = `${BASE}outputs:
  result: \${{ steps.review.<|> }}
`;
    const { entries } = complete(sample);
    expect(entries.find((e) => e.label === 'outcome')!.detail).toBe('enum(approved, changes)?');
  });

  it("offers a step's outcomes inside the string compared with steps.S.outcome", () => {
    const sample = `${BASE}outputs:
  result: \${{ steps.review.outcome == 'ap<|>' }}
`;
    const { entries, text } = complete(sample);
    expect(entries.map((e) => e.label)).toEqual(['approved', 'changes']);
    expect(slice(text, entries[0]!.range)).toBe('ap');
    expect(entries[0]!.insertText).toBe('approved');
  });

  it('offers the quoted outcomes right after == and the choices after gate.choice ==', () => {
    const sample = `${BASE}outputs:
  result: \${{ steps.review.outcome != <|> }}
`;
    expect(labels(sample)).toEqual(["'approved'", "'changes'"]);
    expect(labels(base('"${{ report.summary }}"', `"\${{ report.outcome == '<|>' }}"`))).toEqual([
      'approved',
      'changes',
    ]);
  });

  it('offers nothing right after a complete operand, nor in the prose around ${{ }}', () => {
    expect(labels(base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ inputs.task <|>}}'))).toEqual([]);
    expect(
      labels(base('Build ${{ steps.plan.outputs.plan }}', 'Bu<|>ild ${{ steps.plan.outputs.plan }}')),
    ).toEqual([]);
  });

  it('completes a bare when: condition', () => {
    const { entries, text } = complete(base('when: inputs.strict', 'when: inputs.st<|>'));
    expect(entries.map((e) => e.label)).toEqual(['task', 'strict']);
    expect(slice(text, entries[1]!.range)).toBe('st');
  });

  it('is exact on the second line of a block scalar (|)', () => {
    const sample = base(
      'Build ${{ steps.plan.outputs.plan }}\n',
      'Build ${{ steps.plan.outputs.plan }}\n      and then ${{ steps.plan.outputs.fi<|> }}\n',
    );
    const { entries, text } = complete(sample);
    expect(entries.map((e) => e.label)).toEqual(['plan', 'files']);
    expect(slice(text, entries[1]!.range)).toBe('fi');
  });

  it('is exact inside a folded scalar (>)', () => {
    const sample = base(
      'prompt: |\n      Build ${{ steps.plan.outputs.plan }}\n',
      'prompt: >\n      Build this\n      and ${{ inputs.ta<|> }}\n\n      done\n',
    );
    const { entries, text } = complete(sample);
    expect(entries.map((e) => e.label)).toEqual(['task', 'strict']);
    expect(slice(text, entries[0]!.range)).toBe('ta');
  });

  it('is exact inside a double-quoted scalar with escapes before the cursor', () => {
    const sample = base(
      'prompt: Plan ${{ inputs.task }}',
      'prompt: "Plan \\u00e9\\t\\"x\\" ${{ inputs.ta<|> }}"',
    );
    const { entries, text } = complete(sample);
    expect(entries.map((e) => e.label)).toEqual(['task', 'strict']);
    expect(slice(text, entries[0]!.range)).toBe('ta');
  });

  it('is exact inside a single-quoted scalar with doubled quotes', () => {
    const sample = base('prompt: Plan ${{ inputs.task }}', "prompt: 'It''s ${{ steps.<|> }}'");
    // The first step sees no steps.
    expect(complete(sample).entries.map((e) => e.label)).toEqual([]);
    const after = base('Review ${{ steps.build.outputs.branch }}', "'It''s ${{ steps.b<|> }}'");
    const r = complete(after);
    expect(r.entries.map((e) => e.label)).toEqual(['plan', 'build', 'qa']);
    expect(slice(r.text, r.entries[0]!.range)).toBe('b');
  });

  it('completes inside an unterminated ${{ while it is being typed', () => {
    expect(labels(base('Build ${{ steps.plan.outputs.plan }}', 'Build ${{ inputs.<|>'))).toEqual([
      'task',
      'strict',
    ]);
  });
});

describe('completion of YAML keys', () => {
  it('offers the keys of a step with their schema descriptions, without those present or of another kind', () => {
    const { entries } = complete(base('    run: npm test\n', '    run: npm test\n    <|>\n'));
    const names = entries.map((e) => e.label);
    expect(names).toEqual(
      expect.arrayContaining(['title', 'when', 'outcomes', 'timeout', 'retries', 'env', 'cwd']),
    );
    expect(names).not.toContain('needs');
    expect(names).not.toContain('run');
    expect(names).not.toContain('prompt');
    expect(names).not.toContain('gate');
    const when = entries.find((e) => e.label === 'when')!;
    expect(when.documentation).toMatch(/bare expression/);
    expect(when.insertText).toBe('when: ');
    expect(entries.find((e) => e.label === 'outcomes')!.insertText).toBe('outcomes:\n      ');
  });

  it('offers keys on the line right after a block scalar, which is no longer inside it', () => {
    const sample = base(
      'Build ${{ steps.plan.outputs.plan }}\n',
      'Build ${{ steps.plan.outputs.plan }}\n    ti<|>\n',
    );
    expect(labels(sample)).toContain('title');
    expect(
      labels(base('Build ${{ steps.plan.outputs.plan }}\n', 'Build ${{ steps.plan.outputs.plan }}\n<|>')),
    ).toContain('limits');
  });

  it('offers the root keys, required ones first', () => {
    const { entries } = complete('version: 1\n<|>\n');
    expect(entries[0]!.label).toBe('title');
    expect(entries.map((e) => e.label)).toEqual(
      expect.arrayContaining([
        'title',
        'steps',
        'inputs',
        'roles',
        'limits',
        'after',
        'outputs',
        'workspace',
      ]),
    );
    expect(entries.map((e) => e.label)).not.toContain('version');
  });

  it('replaces the word being typed, and only the name when a colon follows', () => {
    const { entries, text } = complete(base('    prompt: Plan', '    pro<|>mpt: Plan'));
    const prompt = entries.find((e) => e.label === 'prompt')!;
    expect(slice(text, prompt.range)).toBe('prompt');
    expect(prompt.insertText).toBe('prompt');
  });

  it('offers the keys of an input inside a flow mapping', () => {
    const names = labels(
      base('task: { type: string, description: What to build }', 'task: { type: string, <|> }'),
    );
    expect(names).toEqual(expect.arrayContaining(['description', 'default', 'secret', 'multiline']));
    expect(names).not.toContain('type');
  });

  it('offers the keys of a loop transition and of a gate', () => {
    expect(labels(base('changes: { loop: build, feedback', 'changes: { loop: build, <|>feedback'))).toEqual(
      expect.arrayContaining(['max', 'feedback', 'exhausted']),
    );
    const gate = `${BASE}  ship:
    needs: [review]
    gate:
      <|>
`;
    expect(labels(gate)).toEqual(['title', 'summary', 'choices']);
  });

  it('offers no keys where the keys are names, nor inside a block scalar or a comment', () => {
    expect(labels(base('  plan:\n', '  <|>\n  plan:\n'))).toEqual([]);
    expect(labels(base('      Build ${{', '      <|>Build ${{'))).toEqual([]);
    expect(labels(base('    run: npm test\n', '    run: npm test # <|>\n'))).toEqual([]);
  });
});

describe('completion of YAML values', () => {
  it('offers the steps a step may need: not itself, not those already there, not its dependents', () => {
    const { entries } = complete(base('needs: [build]', 'needs: [build, <|>]'));
    expect(entries.map((e) => e.label)).toEqual(['plan']);
    expect(entries[0]!.documentation).toContain('agent step');
    const scalar = complete(base('needs: [qa]', 'needs: q<|>'));
    expect(scalar.entries.map((e) => e.label)).toEqual(['plan', 'build', 'qa']);
    expect(slice(scalar.text, scalar.entries[2]!.range)).toBe('q');
  });

  it('offers needs in a block sequence, skipping the items above', () => {
    const sample = base('    needs: [qa]\n', '    needs:\n      - plan\n      - <|>\n');
    expect(labels(sample)).toEqual(['build', 'qa']);
  });

  it('offers the roles, with the fixed table', () => {
    const { entries } = complete(base('role: sec', 'role: <|>'));
    expect(entries.map((e) => e.label)).toEqual(['implementer', 'reviewer', 'planner', 'researcher', 'sec']);
    expect(entries.find((e) => e.label === 'sec')!.documentation).toContain('base `reviewer`');
    expect(labels(base('base: reviewer', 'base: <|>'))).toEqual([
      'implementer',
      'reviewer',
      'planner',
      'researcher',
    ]);
  });

  it('offers this step and its ancestors as loop targets', () => {
    expect(labels(base('loop: build', 'loop: <|>'))).toEqual(['review', 'plan', 'build', 'qa']);
  });

  it('offers transitions, enums from the schema, booleans and types', () => {
    expect(labels(base('approved: next', 'approved: <|>'))).toEqual(['next', 'fail', 'end', 'retry']);
    expect(labels('version: 1\nworkspace: <|>\n')).toEqual(['current', 'new-agent', 'new-worktree']);
    expect(
      labels(base('strict: { type: boolean, default: false }', 'strict: { type: boolean, secret: <|> }')),
    ).toEqual(['true', 'false']);
    expect(labels(base('      plan: string\n', '      plan: <|>\n'))).toContain('list<string>');
    const after = `${BASE}after:
  notify:
    trigger: auto
    on: [completed, <|>]
`;
    expect(labels(after)).toEqual(['failed']);
  });
});

describe('completion in .kairoku/policy.yml', () => {
  const policy = (sample: string) => {
    const { analysis, offset } = analyzeAt(sample, '.kairoku/policy.yml');
    return completionsAt(analysis, offset);
  };

  it('offers its keys, not a playbook’s, and not one already there', () => {
    expect(policy('<|>').map((e) => e.label)).toEqual(['strict', 'gated']);
    expect(policy('strict: true\n<|>').map((e) => e.label)).toEqual(['gated']);
    expect(policy('<|>')[1]!.documentation).toContain('`git push*`');
  });

  it('offers true and false for strict, and patterns for gated that are not listed yet', () => {
    expect(policy('strict: <|>').map((e) => e.label)).toEqual(['true', 'false']);
    const gated = policy("gated:\n  - 'docker push*'\n  - <|>");
    expect(gated.map((e) => e.label)).toContain('aws *');
    expect(gated.map((e) => e.label)).not.toContain('docker push*');
    expect(gated[0]!.insertText).toMatch(/^'.*'$/);
  });
});
