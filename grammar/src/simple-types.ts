/**
 * The fast path of `parseTypeExpression` for the type strings playbooks write most (`string`,
 * `list<string>`, `enum(approve, changes)`): their tree, built as the parser builds it, without building
 * the type grammar's lexer and parser (chevrotain's self-analysis, a part of a cold `check`). Anything else
 * (objects, `?`, space inside `list<…>`, quoted or repeated members) goes to the parser;
 * grammar/test/simple-types.test.ts holds the two equal.
 */
import type { ParseResult, TypeExpr } from './ast.js';
import { MAX_EXPRESSION_LENGTH } from './limits.js';

const PRIMITIVE = /^(\s*)(string|number|integer|boolean)\s*$/;
const LIST = /^(\s*)list<(string|number|integer|boolean)>\s*$/;
const ENUM = /^(\s*)enum\((\s*[A-Za-z0-9_.-]+\s*(?:,\s*[A-Za-z0-9_.-]+\s*)*)\)\s*$/;
const MEMBER = /[A-Za-z0-9_.-]+/g;
/** Keywords the lexer reads apart from a word: left to the parser as members. */
const KEYWORDS = new Set(['list', 'enum']);

type Primitive = 'string' | 'number' | 'integer' | 'boolean';

/** The parse of a simple type string, or undefined for any other. */
export function parseSimpleType(text: string): ParseResult<TypeExpr> | undefined {
  if (text.length > MAX_EXPRESSION_LENGTH) return undefined; // (the parser refuses it)
  const value = primitive(text) ?? list(text) ?? enumeration(text);
  return value ? { value, errors: [] } : undefined;
}

function primitive(text: string): TypeExpr | undefined {
  const match = PRIMITIVE.exec(text);
  if (!match) return undefined;
  const start = match[1]!.length;
  return { kind: 'primitive', name: match[2] as Primitive, span: { start, end: start + match[2]!.length } };
}

function list(text: string): TypeExpr | undefined {
  const match = LIST.exec(text);
  if (!match) return undefined;
  const start = match[1]!.length;
  const inner = start + 'list<'.length;
  const end = inner + match[2]!.length;
  const element: TypeExpr = { kind: 'primitive', name: match[2] as Primitive, span: { start: inner, end } };
  return { kind: 'list', element, span: { start, end: end + 1 } };
}

function enumeration(text: string): TypeExpr | undefined {
  const match = ENUM.exec(text);
  if (!match) return undefined;
  const start = match[1]!.length;
  const from = start + 'enum('.length;
  const members: { value: string; span: { start: number; end: number } }[] = [];
  const seen = new Set<string>();
  for (const word of match[2]!.matchAll(MEMBER)) {
    if (KEYWORDS.has(word[0]) || seen.has(word[0])) return undefined;
    seen.add(word[0]);
    const at = from + word.index;
    members.push({ value: word[0], span: { start: at, end: at + word[0].length } });
  }
  return { kind: 'enum', members, span: { start, end: from + match[2]!.length + 1 } };
}
