/**
 * A forgiving tokenizer for expression text, for the editor: it never fails, keeps every token's span and
 * marks unterminated string literals. Completion reads the tokens before the cursor; semantic tokens
 * classify them. The grammar's chevrotain lexer stays the authority on what is valid.
 */

export type TokenKind =
  'identifier' | 'keyword' | 'string' | 'number' | 'operator' | 'punctuation' | 'unknown';

export interface ExpressionToken {
  kind: TokenKind;
  /** offsets in the scanned text (a scalar's value) */
  start: number;
  end: number;
  text: string;
  /** for strings: whether the closing quote is there */
  terminated?: boolean;
}

const KEYWORDS = new Set(['true', 'false', 'null']);
const OPERATORS = ['||', '&&', '==', '!=', '<=', '>=', '<', '>', '!'];
const PUNCTUATION = new Set(['(', ')', '[', ']', '.', ',']);

function isIdentifierStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isIdentifierPart(c: string): boolean {
  return isIdentifierStart(c) || (c >= '0' && c <= '9') || c === '-';
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** The end of a quoted literal starting at `start` (past its closing quote), or `end` when it is unterminated. */
function scanString(text: string, start: number, end: number): { end: number; terminated: boolean } {
  const quote = text[start];
  let i = start + 1;
  while (i < end) {
    const c = text[i];
    if (quote === '"' && c === '\\') {
      i += 2;
      continue;
    }
    if (c === quote) {
      if (quote === "'" && text[i + 1] === "'" && i + 1 < end) {
        i += 2;
        continue;
      }
      return { end: i + 1, terminated: true };
    }
    i++;
  }
  return { end, terminated: false };
}

export function tokenizeExpression(text: string, start = 0, end = text.length): ExpressionToken[] {
  const tokens: ExpressionToken[] = [];
  let i = start;
  const push = (kind: TokenKind, from: number, to: number, terminated?: boolean) => {
    const token: ExpressionToken = { kind, start: from, end: to, text: text.slice(from, to) };
    if (terminated !== undefined) token.terminated = terminated;
    tokens.push(token);
  };
  while (i < end) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const scanned = scanString(text, i, end);
      push('string', i, scanned.end, scanned.terminated);
      i = scanned.end;
      continue;
    }
    if (isDigit(c) || (c === '-' && isDigit(text[i + 1]))) {
      const match = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, end));
      const length = match ? match[0].length : 1;
      push('number', i, i + length);
      i += length;
      continue;
    }
    if (isIdentifierStart(c)) {
      let j = i + 1;
      while (j < end && isIdentifierPart(text[j]!)) j++;
      const word = text.slice(i, j);
      push(KEYWORDS.has(word) ? 'keyword' : 'identifier', i, j);
      i = j;
      continue;
    }
    const operator = OPERATORS.find((op) => text.startsWith(op, i) && i + op.length <= end);
    if (operator) {
      push('operator', i, i + operator.length);
      i += operator.length;
      continue;
    }
    push(PUNCTUATION.has(c) ? 'punctuation' : 'unknown', i, i + 1);
    i++;
  }
  return tokens;
}

/** The decoded value of a string token (quotes removed, escapes resolved as the grammar does). */
export function stringTokenValue(token: ExpressionToken): string {
  const quote = token.text[0];
  const body = token.text.slice(1, token.terminated ? -1 : undefined);
  if (quote === "'") return body.replaceAll("''", "'");
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}

/**
 * The member chain that ends with the token at `index` (`steps.plan.outputs` from `outputs`), walking back
 * over `.name` and `['name']`; undefined when the tokens there are not a plain chain from a name.
 */
export function chainEndingAt(tokens: readonly ExpressionToken[], index: number): string[] | undefined {
  const names: string[] = [];
  let i = index;
  for (;;) {
    const token = tokens[i];
    if (!token) return undefined;
    if (token.text === ']') {
      const key = tokens[i - 1];
      if (key?.kind !== 'string' || tokens[i - 2]?.text !== '[') return undefined;
      names.unshift(stringTokenValue(key));
      i -= 3; // `['name']` follows its object directly
      continue;
    }
    if (token.kind !== 'identifier' && token.kind !== 'keyword') return undefined;
    names.unshift(token.text);
    i--;
    if (tokens[i]?.text !== '.') return names;
    i--;
  }
}
