/**
 * Syntax trees of the three small languages inside playbook strings: templates (`${{ }}` in text),
 * expressions, and type expressions. Every span is a half-open range of UTF-16 offsets into the
 * string that was parsed (the decoded YAML scalar value); the compiler maps those to file offsets.
 */

export interface Span {
  start: number;
  end: number;
}

export type BinaryOperator = '&&' | '||' | '==' | '!=' | '<' | '<=' | '>' | '>=';

export type Expr =
  | { kind: 'literal'; value: string | number | boolean | null; span: Span }
  /** A bare name: a context root (`inputs`, `steps`, `run`, `loop`, `report`, `gate`) or an unknown one. */
  | { kind: 'identifier'; name: string; span: Span }
  | { kind: 'member'; object: Expr; property: string; propertySpan: Span; span: Span }
  | { kind: 'index'; object: Expr; index: Expr; span: Span }
  | { kind: 'unary'; operator: '!'; operand: Expr; span: Span }
  | { kind: 'binary'; operator: BinaryOperator; left: Expr; right: Expr; operatorSpan: Span; span: Span }
  | { kind: 'call'; callee: string; calleeSpan: Span; args: Expr[]; span: Span }
  /** A list literal, `[a, b]` or `[]` (an extension of SPEC §3.6: docs/reference.md, "List literals"). */
  | { kind: 'list'; items: Expr[]; span: Span }
  /** Stands where error recovery found no expression; it is never reported again by later stages. */
  | { kind: 'error'; span: Span };

export type TemplatePart =
  | { kind: 'text'; value: string; span: Span }
  /** `${{ expr }}`: `span` covers the delimiters, `expr` is absent when nothing parseable stood inside. */
  | { kind: 'expression'; expr: Expr | undefined; span: Span; innerSpan: Span };

export interface Template {
  parts: TemplatePart[];
}

export type TypeExpr =
  | { kind: 'primitive'; name: 'string' | 'number' | 'integer' | 'boolean'; span: Span }
  | { kind: 'list'; element: TypeExpr; span: Span }
  | { kind: 'enum'; members: { value: string; span: Span }[]; span: Span }
  | {
      kind: 'object';
      fields: { name: string; optional: boolean; type: TypeExpr; nameSpan: Span }[];
      span: Span;
    }
  | { kind: 'nullable'; inner: TypeExpr; span: Span };

/** A syntax error found by one of the grammars, with its stable diagnostic code. */
export interface GrammarError {
  /** PB400 expression syntax, PB403 invalid type expression, PB406 unterminated `${{`. */
  code: 'PB400' | 'PB403' | 'PB406';
  message: string;
  span: Span;
}

export interface ParseResult<T> {
  /** Present whenever anything could be recovered, even when `errors` is not empty. */
  value: T | undefined;
  errors: GrammarError[];
}
