/**
 * Compiled templates and expressions of the IR written back as source-like text, for labels and
 * tooltips: `Ship ${{ steps.implement.outputs.branch }}?`. Display only; never parsed again.
 */
import type { IrExpr, IrTemplate } from '@kairoku-playbook/compiler';

const PRECEDENCE: Record<string, number> = {
  '||': 1,
  '&&': 2,
  '==': 3,
  '!=': 3,
  '<': 4,
  '<=': 4,
  '>': 4,
  '>=': 4,
};
const UNARY = 5;
const PRIMARY = 6;

function precedenceOf(expr: IrExpr): number {
  if (expr.kind === 'binary') return PRECEDENCE[expr.operator] ?? 1;
  if (expr.kind === 'not') return UNARY;
  return PRIMARY;
}

function literalText(value: string | number | boolean | null): string {
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  return String(value);
}

export function expressionText(expr: IrExpr): string {
  const wrap = (child: IrExpr, min: number) => {
    const text = expressionText(child);
    return precedenceOf(child) < min ? `(${text})` : text;
  };
  switch (expr.kind) {
    case 'literal':
      return literalText(expr.value);
    case 'context':
      return expr.name;
    case 'member':
      return /^[A-Za-z_][\w-]*$/.test(expr.property)
        ? `${wrap(expr.object, PRIMARY)}.${expr.property}`
        : `${wrap(expr.object, PRIMARY)}[${literalText(expr.property)}]`;
    case 'index':
      return `${wrap(expr.object, PRIMARY)}[${expressionText(expr.index)}]`;
    case 'not':
      return `!${wrap(expr.operand, UNARY)}`;
    case 'binary': {
      const own = PRECEDENCE[expr.operator] ?? 1;
      // Left-associative: a right operand of the same precedence needs parentheses.
      return `${wrap(expr.left, own)} ${expr.operator} ${wrap(expr.right, own + 1)}`;
    }
    case 'call':
      return `${expr.function}(${expr.args.map(expressionText).join(', ')})`;
    case 'list':
      return `[${expr.items.map(expressionText).join(', ')}]`;
  }
}

/** The template as written: text parts as they are, expressions as `${{ … }}`. */
export function templateText(template: IrTemplate): string {
  return template.parts
    .map((part) => ('text' in part ? part.text : `\${{ ${expressionText(part.expr)} }}`))
    .join('');
}
