/**
 * `when:` conditions (SPEC §3.6): a bare expression; a `${{ }}` around the whole of it is accepted.
 */
import type { Expr, GrammarError, ParseResult } from './ast.js';
import { parseExpression } from './parse-expression.js';
import { parseTemplate } from './template.js';

function isBlank(value: string): boolean {
  return value.trim() === '';
}

/**
 * Parses a condition. Spans are relative to `text` even when it is wrapped in `${{ }}`.
 *
 * A condition that uses `${{ }}` for only part of itself (`${{ a }} && b`) gets one PB400 error at the first
 * `${{`; the delimiters are then blanked out (same length, so spans hold) and the rest is parsed as a bare
 * expression, so the tree is still there for type checking.
 */
export function parseCondition(text: string): ParseResult<Expr> {
  if (!text.includes('${{')) return parseExpression(text);
  const parsed = parseTemplate(text);
  const template = parsed.value!;
  const expressions = template.parts.filter((part) => part.kind === 'expression');
  const onlyBlankText = template.parts.every((part) => part.kind === 'expression' || isBlank(part.value));
  const first = expressions[0];
  if (first === undefined) return parseExpression(text); // only `$${{` escapes: not meaningful here
  if (expressions.length === 1 && onlyBlankText) {
    // The whole condition is wrapped: the template parser already parsed the inside with the right offsets
    // (or reported the one PB406 of an unterminated `${{`).
    return { value: first.expr, errors: parsed.errors };
  }
  // `${{ }}` around a part of the condition only.
  const error: GrammarError = {
    code: 'PB400',
    message: 'a condition is a bare expression: "${{ }}" may only wrap the whole of it',
    span: { start: first.span.start, end: first.span.start + 3 },
  };
  let blanked = '';
  let cursor = 0;
  for (const part of expressions) {
    blanked +=
      text.slice(cursor, part.span.start) + '   ' + text.slice(part.innerSpan.start, part.innerSpan.end);
    cursor = part.innerSpan.end;
    if (part.span.end > part.innerSpan.end) {
      blanked += '  ';
      cursor = part.span.end;
    }
  }
  blanked += text.slice(cursor);
  const bare = parseExpression(blanked);
  return { value: bare.value, errors: [error, ...bare.errors] };
}
