import type { Expr, GrammarError, Span, TypeExpr } from '../src/index.js';

/** A compact rendering of an expression tree: binary and unary nodes are parenthesized. */
export function show(expr: Expr | undefined): string {
  if (expr === undefined) return '<none>';
  switch (expr.kind) {
    case 'literal':
      return JSON.stringify(expr.value);
    case 'identifier':
      return expr.name;
    case 'member':
      return `${show(expr.object)}.${expr.property}`;
    case 'index':
      return `${show(expr.object)}[${show(expr.index)}]`;
    case 'unary':
      return `(!${show(expr.operand)})`;
    case 'binary':
      return `(${show(expr.left)} ${expr.operator} ${show(expr.right)})`;
    case 'call':
      return `${expr.callee}(${expr.args.map(show).join(', ')})`;
    case 'list':
      return `[${expr.items.map(show).join(', ')}]`;
    case 'error':
      return '<error>';
  }
}

export function at(text: string, span: Span): string {
  return text.slice(span.start, span.end);
}

/** Every span in an expression tree, with what it belongs to. */
export function spansOf(expr: Expr): Span[] {
  const spans: Span[] = [expr.span];
  switch (expr.kind) {
    case 'member':
      spans.push(expr.propertySpan, ...spansOf(expr.object));
      break;
    case 'index':
      spans.push(...spansOf(expr.object), ...spansOf(expr.index));
      break;
    case 'unary':
      spans.push(...spansOf(expr.operand));
      break;
    case 'binary':
      spans.push(expr.operatorSpan, ...spansOf(expr.left), ...spansOf(expr.right));
      break;
    case 'call':
      spans.push(expr.calleeSpan, ...expr.args.flatMap(spansOf));
      break;
    case 'list':
      spans.push(...expr.items.flatMap(spansOf));
      break;
    default:
      break;
  }
  return spans;
}

export function messages(errors: GrammarError[]): string[] {
  return errors.map((error) => `${error.code} ${error.message}`);
}

/** The height of a tree (a leaf is 1), measured without recursion: the trees under test may be deep. */
export function heightOf(root: Expr | TypeExpr | undefined): number {
  let highest = 0;
  const stack: [Expr | TypeExpr, number][] = root ? [[root, 1]] : [];
  while (stack.length) {
    const [node, height] = stack.pop()!;
    highest = Math.max(highest, height);
    const children: (Expr | TypeExpr)[] = [];
    switch (node.kind) {
      case 'member':
        children.push(node.object);
        break;
      case 'index':
        children.push(node.object, node.index);
        break;
      case 'unary':
        children.push(node.operand);
        break;
      case 'binary':
        children.push(node.left, node.right);
        break;
      case 'call':
        children.push(...node.args);
        break;
      case 'list':
        // (a list literal of an expression, or a list<T> of a type expression)
        children.push(...('items' in node ? node.items : [node.element]));
        break;
      case 'object':
        children.push(...node.fields.map((field) => field.type));
        break;
      case 'nullable':
        children.push(node.inner);
        break;
      default:
        break;
    }
    for (const child of children) stack.push([child, height + 1]);
  }
  return highest;
}
