/**
 * Templates: text with `${{ expr }}` parts (SPEC §3.6). `$${{` writes a literal `${{`.
 *
 * A hand-written linear scanner finds the parts; the inside of each `${{ }}` goes to `parseExpression`
 * with its offset, so every span is relative to the whole template string. Finding the closing `}}`
 * skips string literals, so `${{ format('}}{0}', x) }}` is one expression. If the quote-aware scan runs off
 * the end (an unterminated literal inside), the first plain `}}` closes the expression instead and the
 * expression parser reports the unterminated literal: one mistake, one error.
 */
import type { GrammarError, ParseResult, Template, TemplatePart } from './ast.js';
import { parseExpression } from './parse-expression.js';
import { scanQuoted } from './strings.js';

const OPEN = '${{';
const ESCAPE = '$${{';
const CLOSE = '}}';

/** The offset of the `}}` closing an expression whose inside starts at `from`, or -1 (quote-aware). */
function findCloseQuoted(text: string, from: number): number {
  const length = text.length;
  let i = from;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x27 /* ' */ || c === 0x22 /* " */) {
      const end = scanQuoted(text, i);
      if (end < 0) return -1;
      i = end;
    } else if (c === 0x7d /* } */ && text.charCodeAt(i + 1) === 0x7d) {
      return i;
    } else {
      i++;
    }
  }
  return -1;
}

/**
 * Splits `text` into text and expression parts and parses each expression.
 *
 * An unterminated `${{` is one PB406 error whose span is the three characters `${{` (the spot to fix; a
 * span to the end of the string would drown the rest of a long prompt in squiggles). The scan stops
 * there: the rest of the string becomes an expression part without `expr`, so later stages skip it.
 */
export function parseTemplate(text: string): ParseResult<Template> {
  const parts: TemplatePart[] = [];
  const errors: GrammarError[] = [];
  let pendingText = '';
  let pendingStart = 0;
  /** Where the not-yet-copied text starts. */
  let cursor = 0;
  /** After one quote-aware scan ran off the end, later ones would too: stay linear. */
  let quotesUnreliable = false;

  const flushText = (end: number): void => {
    pendingText += text.slice(cursor, end);
    if (pendingText !== '')
      parts.push({ kind: 'text', value: pendingText, span: { start: pendingStart, end } });
    pendingText = '';
  };

  let dollar = text.indexOf('$');
  while (dollar >= 0) {
    if (text.startsWith(ESCAPE, dollar)) {
      pendingText += text.slice(cursor, dollar) + OPEN;
      cursor = dollar + ESCAPE.length;
      dollar = text.indexOf('$', cursor);
      continue;
    }
    if (!text.startsWith(OPEN, dollar)) {
      dollar = text.indexOf('$', dollar + 1);
      continue;
    }
    flushText(dollar);
    const innerStart = dollar + OPEN.length;
    let close = quotesUnreliable ? -1 : findCloseQuoted(text, innerStart);
    if (close < 0) {
      quotesUnreliable = true;
      close = text.indexOf(CLOSE, innerStart);
    }
    if (close < 0) {
      errors.push({
        code: 'PB406',
        message: 'unterminated "${{": expected "}}" to close it',
        span: { start: dollar, end: innerStart },
      });
      parts.push({
        kind: 'expression',
        expr: undefined,
        span: { start: dollar, end: text.length },
        innerSpan: { start: innerStart, end: text.length },
      });
      return { value: { parts }, errors };
    }
    const parsed = parseExpression(text.slice(innerStart, close), innerStart);
    errors.push(...parsed.errors);
    parts.push({
      kind: 'expression',
      expr: parsed.value,
      span: { start: dollar, end: close + CLOSE.length },
      innerSpan: { start: innerStart, end: close },
    });
    cursor = close + CLOSE.length;
    pendingStart = cursor;
    dollar = text.indexOf('$', cursor);
  }
  flushText(text.length);
  return { value: { parts }, errors };
}

/** Whether the template is exactly one `${{ expr }}` with no text around it (it then keeps its type). */
export function isSingleExpression(template: Template): boolean {
  return template.parts.length === 1 && template.parts[0]!.kind === 'expression';
}
