/**
 * PB700 (SPEC §4, approval dominance) and the workspace policy file it reads. The agreement with `explore`
 * on every sample and on random playbooks is machine/test/explore-agreement.test.ts; here, each rule alone.
 */
import { describe, expect, it } from 'vitest';
import { analyzeChange, analyzeFile, validateWorkspace } from '../src/index.js';
import type { Diagnostic } from '../src/index.js';
import { commandsOf, patternsOverlap } from '../src/checks/command-patterns.js';
import { analyzePolicyFile } from '../src/policy-file/policy-file.js';

const HEAD = 'version: 1\ntitle: T\n';

function pb700(text: string, policy?: string): Diagnostic[] {
  const files = [{ file: 'p.yml', text: HEAD + text }];
  if (policy !== undefined) files.unshift({ file: '.kairoku/policy.yml', text: policy });
  return validateWorkspace(files).diagnostics.filter((d) => d.code === 'PB700');
}

/** The names PB700 reports, in order. */
function reported(text: string, policy?: string): string[] {
  return pb700(text, policy).map((d) => /"([^"]+)"/.exec(d.message)![1]!);
}

describe('patterns', () => {
  it('overlap when some command matches both', () => {
    expect(patternsOverlap('git push origin main', 'git push*')).toBe(true);
    expect(patternsOverlap('git *', 'git push*')).toBe(true);
    expect(patternsOverlap('* --force', 'git push*')).toBe(true);
    expect(patternsOverlap('git status', 'git push*')).toBe(false);
    expect(patternsOverlap('npm run lint*', 'npm publish*')).toBe(false);
    expect(patternsOverlap('kubectl', 'kubectl *')).toBe(false);
    expect(patternsOverlap('kubectl get pods', 'kubectl *')).toBe(true);
    expect(patternsOverlap('a*c', '*b*')).toBe(true);
    expect(patternsOverlap('a*c', 'ab')).toBe(false);
  });

  it("split a check step's line at shell operators; a template is any text", () => {
    expect(commandsOf('npm test && git push origin HEAD').map((c) => c.pattern)).toEqual([
      'npm test',
      'git push origin HEAD',
    ]);
    expect(commandsOf('CI=1 npm publish').map((c) => c.pattern)).toEqual(['npm publish']);
    expect(commandsOf('echo ${{ a || b }} | tee x').map((c) => c.pattern)).toEqual(['echo *', 'tee x']);
    const line = 'npm test; git push';
    const [, push] = commandsOf(line);
    expect(line.slice(push!.start, push!.end)).toBe('git push');
  });
});

describe('PB700', () => {
  it('reports a step that runs a gated command with no gate before it, on the step', () => {
    const text = 'steps:\n  ship:\n    run: npm test && git push\n';
    const [d] = pb700(text);
    expect(d!.severity).toBe('warning');
    expect((HEAD + text).slice(d!.range.start, d!.range.end)).toBe('ship');
    expect((HEAD + text).slice(d!.related![0]!.range.start, d!.related![0]!.range.end)).toBe('git push');
  });

  it('is silent when a gate the step needs must approve, directly or further up', () => {
    expect(
      reported(
        'steps:\n  ok:\n    gate: { title: Go? }\n  build:\n    needs: ok\n    run: make\n  push:\n    needs: build\n    run: git push\n',
      ),
    ).toEqual([]);
  });

  it('does not count a gate that is not an ancestor: it may be decided after the step starts', () => {
    expect(reported('steps:\n  ok:\n    gate: { title: Go? }\n  push:\n    run: git push\n')).toEqual([
      'push',
    ]);
  });

  it('does not count a gate its when can skip, unless the when is written true', () => {
    const gate = (when: string) =>
      `steps:\n  ok:\n    when: ${when}\n    gate: { title: Go? }\n  push:\n    needs: ok\n    run: git push\n`;
    expect(reported(`inputs:\n  go: { type: boolean }\n${gate('inputs.go')}`)).toEqual(['push']);
    expect(reported(gate('true'))).toEqual([]);
  });

  it('does not count a choice whose loop runs out into next: nobody approved', () => {
    const text = `steps:
  build:
    run: make
  ok:
    needs: build
    gate:
      title: Go?
      choices:
        approve: next
        revise: { loop: build, max: 2, exhausted: next }
  push:
    needs: ok
    run: git push
`;
    const [d] = pb700(text);
    expect(d!.message).toContain('step "push"');
    expect(d!.related!.map((r) => r.message)).toContain(
      'gate "ok" can go on without approving: choice "revise" loops, and when its loops run out it goes on',
    );
    expect(reported(text.replace('exhausted: next', 'exhausted: fail'))).toEqual([]);
  });

  it('says nothing of a step that cannot start unapproved because a need can only fail or end', () => {
    expect(
      reported(
        'steps:\n  stop:\n    run: make\n    outcomes: { pass: end, fail: fail }\n  push:\n    needs: stop\n    run: git push\n',
      ),
    ).toEqual([]);
  });

  it("reads an agent step's role: its run patterns; run: true only under a strict policy", () => {
    const roles = `roles:
  deployer:
    base: implementer
    tools: { run: ['kubectl apply*'] }
  builder:
    base: implementer
steps:
  deploy:
    role: deployer
    prompt: Deploy.
  build:
    role: builder
    prompt: Build.
  plan:
    role: planner
    prompt: Plan.
`;
    expect(reported(roles)).toEqual(['deploy']);
    expect(reported(roles, 'strict: true\n')).toEqual(['deploy', 'build']);
  });

  it('after-tasks: one after a failed run is unapproved; one after a completed run only when a run can complete unapproved', () => {
    const steps = (ok: string) => `steps:
  ok:
    ${ok}
    gate: { title: Go? }
after:
  tag:
    on: [completed]
    run: git push --tags
  notify:
    on: [failed]
    run: git push origin notes
`;
    expect(reported(steps('retries: 0'))).toEqual(['notify']);
    expect(reported(`inputs:\n  go: { type: boolean }\n${steps('when: inputs.go')}`)).toEqual([
      'tag',
      'notify',
    ]);
  });

  it('applies the gated patterns of the policy file, and names where they come from', () => {
    const text = 'steps:\n  image:\n    run: docker push app\n';
    expect(reported(text)).toEqual([]);
    const [d] = pb700(text, 'gated: [docker push*]\n');
    expect(d!.message).toContain('"docker push*" is gated by .kairoku/policy.yml');
  });

  it('is suppressed by code on the step', () => {
    const text = 'steps:\n  ship: # playbook-ignore PB700 a dry run\n    run: npm publish --dry-run\n';
    expect(validateWorkspace([{ file: 'p.yml', text: HEAD + text }]).diagnostics).toEqual([]);
  });

  it('keeps the policy across an edit analysed incrementally', () => {
    const text = `${HEAD}steps:\n  image:\n    run: docker push app\n    title: Push\n`;
    const policy = analyzePolicyFile('.kairoku/policy.yml', 'gated: [docker push*]\n').policy;
    const before = analyzeFile('p.yml', text, { policy });
    const at = text.indexOf('Push');
    const { analysis } = analyzeChange(before, { start: at, end: at + 4, text: 'Ship' });
    expect(analysis.diagnostics.map((d) => d.code)).toEqual(['PB700']);
  });

  it('is linear: a 3,000-step chain with a gate at the top is checked, and reports nothing', () => {
    const steps = ['steps:', '  ok:', '    gate: { title: Go? }'];
    for (let i = 0; i < 3000; i++)
      steps.push(`  s${i}:`, `    needs: ${i ? `s${i - 1}` : 'ok'}`, '    run: git push');
    expect(reported(`${steps.join('\n')}\n`)).toEqual([]);
  });
});

describe('the policy file', () => {
  it('takes strict and gated, each mistake its own diagnostic, the rest applied', () => {
    const read = analyzePolicyFile(
      '.kairoku/policy.yml',
      "strict: 1\ngated: ['* x', docker push*]\nextra: 1\n",
    );
    expect(read.diagnostics.map((d) => d.code).sort()).toEqual(['PB701', 'PB701', 'PB702']);
    expect(read.policy.strict).toBe(false);
    expect(read.policy.gated.map((g) => g.pattern)).toContain('docker push*');
    expect(read.policy.gated.map((g) => g.pattern)).not.toContain('* x');
  });

  it('reports YAML mistakes as any file does, and an empty file is no policy', () => {
    expect(analyzePolicyFile('.kairoku/policy.yml', 'gated: [\n').diagnostics.map((d) => d.code)).toEqual([
      'PB100',
    ]);
    expect(analyzePolicyFile('.kairoku/policy.yml', '').diagnostics).toEqual([]);
    expect(analyzePolicyFile('.kairoku/policy.yml', '- a\n').diagnostics.map((d) => d.code)).toEqual([
      'PB701',
    ]);
  });
});
