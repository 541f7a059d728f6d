import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePlaybook } from '@kairoku-playbook/compiler';
import type { Ir } from '@kairoku-playbook/compiler';
import { expressionText, templateText } from '../../../src/service/language/template-text.js';

const repo = (path: string) => new URL(`../../../../${path}`, import.meta.url);

function irOf(file: string, text = readFileSync(repo(file), 'utf8')): Ir {
  const { ir, diagnostics } = compilePlaybook(file, text);
  if (!ir) throw new Error(`${file} has errors: ${JSON.stringify(diagnostics)}`);
  return ir;
}

describe('template text', () => {
  it('writes templates and expressions back as source', () => {
    const ir = irOf('playbooks/pr.yml');
    const ship = ir.steps.find((s) => s.name === 'ship')!;
    expect(templateText(ship.gate!.title!)).toBe('Ship ${{ steps.implement.outputs.branch }}?');
    expect(templateText(ship.gate!.summary!)).toBe(
      "Review verdict: ${{ default(steps.review.outputs.verdict, 'not reviewed') }}",
    );
    expect(
      expressionText({
        kind: 'binary',
        operator: '&&',
        left: {
          kind: 'binary',
          operator: '||',
          left: { kind: 'context', name: 'a' },
          right: { kind: 'context', name: 'b' },
        },
        right: {
          kind: 'not',
          operand: {
            kind: 'index',
            object: { kind: 'context', name: 'c' },
            index: { kind: 'literal', value: "it's" },
          },
        },
      }),
    ).toBe("(a || b) && !c['it''s']");
  });
});
