import type { IrExpr, IrTemplate } from '@kairoku-playbook/compiler';

/**
 * Evaluates the IR's expression trees and renders its templates (SPEC §3.6). The compiler has
 * type-checked every expression, so evaluation is total: a missing value is `null`, never an
 * exception, and nothing here reads a clock or the file system.
 */

/** A context root whose members are looked up on demand (`steps`: a 10,000-step run builds no map). */
export class Lookup {
  constructor(private readonly find: (name: string) => unknown) {}
  get(name: string): unknown {
    return this.find(name);
  }
}

/** What an expression may read: `inputs`, `steps`, `run`, `loop`, `report`, `gate`. */
export interface Scope {
  inputs?: Record<string, unknown>;
  steps?: Lookup | Record<string, unknown>;
  run?: Record<string, unknown>;
  loop?: { count: number; feedback: string };
  report?: Record<string, unknown>;
  gate?: { comment: string; choice: string };
}

export function evaluate(expr: IrExpr, scope: Scope): unknown {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'context':
      return (scope as Record<string, unknown>)[expr.name] ?? null;
    case 'member':
      return member(evaluate(expr.object, scope), expr.property);
    case 'index': {
      const object = evaluate(expr.object, scope);
      const index = evaluate(expr.index, scope);
      if (Array.isArray(object)) {
        return typeof index === 'number' && Number.isInteger(index) ? (object[index] ?? null) : null;
      }
      return typeof index === 'string' ? member(object, index) : null;
    }
    case 'not':
      return !truthy(evaluate(expr.operand, scope));
    case 'binary':
      return binary(expr.operator, expr.left, expr.right, scope);
    case 'call':
      return call(
        expr.function,
        expr.args.map((arg) => evaluate(arg, scope)),
      );
    case 'list':
      return expr.items.map((item) => evaluate(item, scope));
  }
}

/** A template's value: a single `${{ expr }}` keeps the expression's type; anything else is text. */
export function render(template: IrTemplate, scope: Scope): unknown {
  if (template.single && template.parts.length === 1) {
    const part = template.parts[0]!;
    if ('expr' in part) return evaluate(part.expr, scope);
  }
  return renderText(template, scope);
}

/** A template as text: every part interpolated, `null` as empty text. */
export function renderText(template: IrTemplate, scope: Scope): string {
  let text = '';
  for (const part of template.parts) text += 'text' in part ? part.text : toText(evaluate(part.expr, scope));
  return text;
}

/** How a value reads inside text: null is empty, lists and objects are JSON. */
export function toText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function member(object: unknown, property: string): unknown {
  if (object instanceof Lookup) return object.get(property) ?? null;
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return null;
  if (!Object.prototype.hasOwnProperty.call(object, property)) return null;
  return (object as Record<string, unknown>)[property] ?? null;
}

function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  return true;
}

function binary(operator: string, leftExpr: IrExpr, rightExpr: IrExpr, scope: Scope): unknown {
  if (operator === '&&') return truthy(evaluate(leftExpr, scope)) && truthy(evaluate(rightExpr, scope));
  if (operator === '||') return truthy(evaluate(leftExpr, scope)) || truthy(evaluate(rightExpr, scope));
  const left = evaluate(leftExpr, scope);
  const right = evaluate(rightExpr, scope);
  switch (operator) {
    case '==':
      return equal(left, right);
    case '!=':
      return !equal(left, right);
  }
  // Ordering compares two numbers or two strings; anything else (null included) is false.
  const comparable =
    (typeof left === 'number' && typeof right === 'number') ||
    (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const l = left as number | string;
  const r = right as number | string;
  switch (operator) {
    case '<':
      return l < r;
    case '<=':
      return l <= r;
    case '>':
      return l > r;
    case '>=':
      return l >= r;
  }
  return null;
}

/** Structural equality of JSON values; no conversions (`1 == '1'` is false). */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => equal(item, other[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.prototype.hasOwnProperty.call(b, k) &&
      equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

function call(name: string, args: unknown[]): unknown {
  const [a, b] = args;
  switch (name) {
    case 'contains':
      if (typeof a === 'string') return b !== null && b !== undefined && a.includes(toText(b));
      if (Array.isArray(a)) return a.some((item) => equal(item, b));
      return false;
    case 'startsWith':
      return typeof a === 'string' && typeof b === 'string' && a.startsWith(b);
    case 'endsWith':
      return typeof a === 'string' && typeof b === 'string' && a.endsWith(b);
    case 'join': {
      if (!Array.isArray(a)) return a === null || a === undefined ? '' : toText(a);
      const separator = args.length > 1 ? toText(b) : ',';
      return a.map(toText).join(separator);
    }
    case 'len':
      if (typeof a === 'string' || Array.isArray(a)) return a.length;
      return 0;
    case 'toJSON':
      return JSON.stringify(a ?? null);
    case 'format':
      return format(toText(a), args.slice(1));
    case 'default':
      return a === null || a === undefined ? (b ?? null) : a;
  }
  return null;
}

/** `format('{0} and {1}', a, b)`; `{{` and `}}` write literal braces; an index past the values is empty. */
function format(template: string, values: unknown[]): string {
  return template.replace(/\{\{|\}\}|\{(\d+)\}/g, (match, index: string | undefined) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    return toText(values[Number(index)]);
  });
}
