/**
 * `parseExpression`: the expression parser (expression.ts, chevrotain) with two fast paths that build the
 * tree it builds. First the commonest expression by far, a member chain (`inputs.task`,
 * `steps.build.outputs.branch`, `report.summary`: 5,720 of the 6,057 `${{ }}` of the 2,000-step benchmark),
 * without lexing; then any other well-formed expression (fast-expression.ts, a small hand-written parser).
 * Only text with a mistake reaches chevrotain, whose parser is then built: its errors, recovery and
 * messages are the one source of PB400. grammar/test/parse-expression.test.ts and fast-expression.test.ts
 * hold the paths equal.
 */
import type { Expr, ParseResult } from './ast.js';
import { parseExpressionWithParser } from './expression.js';
import { parseWellFormed } from './fast-expression.js';
import { MAX_EXPRESSION_LENGTH } from './limits.js';

/** Names as the Identifier token reads them, joined by dots; space only around the whole chain. */
const CHAIN = /^(\s*)([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)\s*$/;
/** Well below the parser's height limit (MAX_TREE_HEIGHT): a longer chain goes to the parser. */
const MAX_NAMES = 16;
/** Keywords the lexer reads as literals when they stand alone (`true.x` starts with a literal). */
const KEYWORDS = new Set(['true', 'false', 'null']);

/**
 * Parses one expression. `offset` is added to every span (to parse the inside of a `${{ }}` with spans
 * relative to the whole template). The value is present unless the text is empty; after errors it holds
 * `error` nodes where pieces were missing.
 */
export function parseExpression(text: string, offset = 0): ParseResult<Expr> {
  if (text.length > MAX_EXPRESSION_LENGTH) return parseExpressionWithParser(text, offset);
  const tree = memberChain(text, offset) ?? parseWellFormed(text, offset);
  return tree ? { value: tree, errors: [] } : parseExpressionWithParser(text, offset);
}

/** The tree of a member chain, spans moved by `offset`; undefined for any other expression. */
function memberChain(text: string, offset: number): Expr | undefined {
  const match = CHAIN.exec(text);
  if (!match) return undefined;
  const names = match[2]!.split('.');
  if (names.length > MAX_NAMES || KEYWORDS.has(names[0]!)) return undefined;
  const start = offset + match[1]!.length;
  let end = start + names[0]!.length;
  let expr: Expr = { kind: 'identifier', name: names[0]!, span: { start, end } };
  for (let i = 1; i < names.length; i++) {
    const property = names[i]!;
    const propertyStart = end + 1;
    end = propertyStart + property.length;
    expr = {
      kind: 'member',
      object: expr,
      property,
      propertySpan: { start: propertyStart, end },
      span: { start, end },
    };
  }
  return expr;
}
