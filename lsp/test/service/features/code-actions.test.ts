import { describe, expect, it } from 'vitest';
import { codeActionsFor } from '../../../src/service/features/code-actions.js';
import type { CodeActionResult } from '../../../src/service/features/code-actions.js';
import { analyze, applyEdits } from '../../support/cursor.js';

function actions(text: string, code: string): CodeActionResult[] {
  const analysis = analyze(text);
  return codeActionsFor(
    analysis,
    analysis.diagnostics.filter((d) => d.code === code),
  );
}

function apply(text: string, action: CodeActionResult | undefined): string {
  if (!action) throw new Error('no such action');
  return applyEdits(text, action.edits);
}

function codesOf(text: string): string[] {
  return analyze(text).diagnostics.map((d) => d.code);
}

const HEAD = `version: 1
title: T
steps:
  plan:
    role: planner
    prompt: Plan it.
    outputs:
      notes: string
`;

describe('the diagnostic fix (did you mean)', () => {
  it('applies the replacement the compiler proposes, as the preferred action', () => {
    const text = `${HEAD}  build:
    needs: [plna]
    role: implementer
    prompt: Build \${{ steps.plan.outputs.notes }}
`;
    const [fix] = actions(text, 'PB200');
    expect(fix).toMatchObject({ title: 'Replace with "plan"', isPreferred: true, kind: 'quickfix' });
    expect(apply(text, fix)).toContain('needs: [plan]');
    expect(codesOf(apply(text, fix))).toEqual([]);
  });
});

describe('PB205: add the missing need', () => {
  const use = 'prompt: Build ${{ steps.plan.outputs.notes }}';
  const title = 'Add "plan" to the needs of "build"';

  it('creates needs as the first key of a step without it', () => {
    const text = `${HEAD}  build:
    role: implementer
    ${use}
`;
    const action = actions(text, 'PB205').find((a) => a.title === title);
    const fixed = apply(text, action);
    expect(fixed).toContain('  build:\n    needs: [plan]\n    role: implementer');
    expect(codesOf(fixed)).toEqual([]);
  });

  it('adds to a flow list, a block list and a single name, keeping the style', () => {
    const flow = `${HEAD}  other:
    role: planner
    prompt: x
  build:
    needs: [other]
    role: implementer
    ${use}
`;
    expect(
      apply(
        flow,
        actions(flow, 'PB205').find((a) => a.title === title),
      ),
    ).toContain('needs: [other, plan]');
    const block = flow.replace('needs: [other]', 'needs:\n      - other  # first');
    const fixedBlock = apply(
      block,
      actions(block, 'PB205').find((a) => a.title === title),
    );
    expect(fixedBlock).toContain('needs:\n      - other  # first\n      - plan\n    role');
    expect(codesOf(fixedBlock)).toEqual([]);
    const scalar = flow.replace('needs: [other]', 'needs: other');
    expect(
      apply(
        scalar,
        actions(scalar, 'PB205').find((a) => a.title === title),
      ),
    ).toContain('needs: [other, plan]');
    const empty = flow.replace('needs: [other]', 'needs: []');
    expect(
      apply(
        empty,
        actions(empty, 'PB205').find((a) => a.title === title),
      ),
    ).toContain('needs: [plan]');
  });

  it('keeps CRLF and lone-CR line breaks', () => {
    const text = `${HEAD}  build:
    role: implementer
    ${use}
`;
    for (const eol of ['\r\n', '\r']) {
      const other = text.replaceAll('\n', eol);
      const fixed = apply(
        other,
        actions(other, 'PB205').find((a) => a.title === title),
      );
      expect(fixed).toBe(
        apply(
          text,
          actions(text, 'PB205').find((a) => a.title === title),
        ).replaceAll('\n', eol),
      );
      expect(codesOf(fixed)).toEqual([]);
    }
  });

  it('adds needs to a step written as a flow mapping', () => {
    const text = `${HEAD}  build: { role: implementer, prompt: "Build \${{ steps.plan.outputs.notes }}" }\n`;
    const fixed = apply(
      text,
      actions(text, 'PB205').find((a) => a.title === title),
    );
    expect(fixed).toContain('build: { needs: [plan], role: implementer');
    expect(codesOf(fixed)).toEqual([]);
  });

  it('is not offered when the need would close a cycle', () => {
    const text = `version: 1
title: T
steps:
  a:
    role: planner
    prompt: x \${{ steps.b.outputs.o }}
    outputs: { o: string }
  b:
    needs: [a]
    role: planner
    prompt: y
    outputs: { o: string }
`;
    expect(actions(text, 'PB205').map((a) => a.title)).toEqual([]);
  });
});

describe('PB204: declare the missing output', () => {
  const title = 'Declare output "branch" (string) on step "plan"';
  const use = `  build:
    needs: [plan]
    role: implementer
    prompt: Build \${{ steps.plan.outputs.branch }} \${{ steps.plan.outputs.notes }}
`;

  it('adds it to an outputs mapping in the same style', () => {
    const text = HEAD + use;
    const fixed = apply(
      text,
      actions(text, 'PB204').find((a) => a.title === title),
    );
    expect(fixed).toContain('    outputs:\n      notes: string\n      branch: string\n');
    expect(codesOf(fixed)).toEqual([]);
    const flow = text.replace('    outputs:\n      notes: string\n', '    outputs: { notes: string }\n');
    const fixedFlow = apply(
      flow,
      actions(flow, 'PB204').find((a) => a.title === title),
    );
    expect(fixedFlow).toContain('outputs: { notes: string, branch: string }');
    expect(codesOf(fixedFlow)).toEqual([]);
  });

  it('creates outputs when the step has none, after a block scalar too', () => {
    const text = `version: 1
title: T
steps:
  plan:
    role: planner
    prompt: |
      Plan it.

  build:
    needs: [plan]
    role: implementer
    prompt: Build \${{ steps.plan.outputs.branch }}
`;
    const fixed = apply(
      text,
      actions(text, 'PB204').find((a) => a.title === title),
    );
    expect(fixed).toContain('    prompt: |\n      Plan it.\n    outputs:\n      branch: string\n');
    expect(codesOf(fixed)).toEqual([]);
  });
});

describe('suppression comments', () => {
  it('adds # playbook-ignore CODE at the end of the reported line, which silences it', () => {
    const text = `version: 1
title: T
inputs:
  spare: { type: string, default: x }
steps:
  only:
    role: implementer
    prompt: Do it.
`;
    const [ignore] = actions(text, 'PB900');
    expect(ignore!.title).toBe('Ignore PB900 on this line');
    const fixed = apply(text, ignore);
    expect(fixed).toContain('  spare: { type: string, default: x } # playbook-ignore PB900 <reason>\n');
    expect(codesOf(fixed)).toEqual([]);
  });

  it('adds the code to a suppression comment already on the line', () => {
    const text = `version: 1
title: T
inputs:
  spare: { type: string, default: x } # playbook-ignore PB901 not yet
steps:
  only:
    role: implementer
    prompt: Do it.
`;
    const fixed = apply(
      text,
      actions(text, 'PB900').find((a) => a.title === 'Ignore PB900 on this line'),
    );
    expect(fixed).toContain('# playbook-ignore PB900 PB901 not yet');
    // PB900 is silenced; the PB901 that was there already silences nothing on this line.
    expect(codesOf(fixed)).toEqual(['PB903']);
  });

  it('is not offered for errors, which are never silenced', () => {
    const text = `version: 1
title: T
steps:
  only:
    role: implementer
    prompt: Do \${{ steps.x.outputs.y }}
`;
    expect(actions(text, 'PB203').map((a) => a.title)).not.toContain('Ignore PB203 on this line');
  });

  it('is not offered inside a block scalar, where a comment would become part of the text', () => {
    const text = `version: 1
title: T
steps:
  only:
    role: implementer
    prompt: |
      Do \${{ inputs.nope }}
`;
    expect(actions(text, 'PB202').map((a) => a.title)).toEqual([]);
  });

  it('removes a suppression that silences nothing (PB903)', () => {
    const alone = `version: 1
title: T
steps:
  # playbook-ignore PB900 stale
  only:
    role: implementer
    prompt: Do it.
`;
    const [remove] = actions(alone, 'PB903');
    expect(remove!.title).toBe('Remove this unused suppression');
    expect(apply(alone, remove)).toBe(alone.replace('  # playbook-ignore PB900 stale\n', ''));
    const trailing = alone
      .replace('  # playbook-ignore PB900 stale\n', '')
      .replace('Do it.', 'Do it. # playbook-ignore PB900');
    expect(apply(trailing, actions(trailing, 'PB903')[0])).toContain('    prompt: Do it.\n');
  });
});

describe('PB700: add a gate before the step', () => {
  const title = (step: string) => `Add a gate "approve-${step}" before "${step}"`;

  it('inserts a gate that takes over the needs, and the step needs it: PB700 is gone, nothing else comes', () => {
    const text = `${HEAD}  push:
    needs: [plan]
    run: git push origin HEAD
`;
    const fix = actions(text, 'PB700').find((a) => a.title === title('push'));
    expect(fix?.isPreferred).toBe(false);
    const fixed = apply(text, fix);
    expect(fixed).toContain(`  approve-push:
    needs: [plan]
    gate:
      title: Run push?
  push:
    needs: [approve-push]`);
    expect(codesOf(fixed)).toEqual(['PB901']);
  });

  it('adds needs to a step without them, and a block list of needs becomes the gate', () => {
    const first = `version: 1
title: T
steps:
  push:
    run: git push
`;
    expect(
      codesOf(
        apply(
          first,
          actions(first, 'PB700').find((a) => a.title === title('push')),
        ),
      ),
    ).toEqual([]);
    const block = `${HEAD}  push:
    needs:
      - plan
    run: npm publish
`;
    expect(
      codesOf(
        apply(
          block,
          actions(block, 'PB700').find((a) => a.title === title('push')),
        ),
      ),
    ).toEqual(['PB901']);
  });

  it('picks a name no step has', () => {
    const text = `${HEAD}  approve-push:
    needs: plan
    when: false
    gate: { title: Never asked }
  push:
    needs: [approve-push]
    run: git push
`;
    const fix = actions(text, 'PB700').find((a) => a.title.startsWith('Add a gate'));
    expect(fix?.title).toBe('Add a gate "approve-push-2" before "push"');
    expect(codesOf(apply(text, fix))).toEqual(['PB901']);
  });
});
