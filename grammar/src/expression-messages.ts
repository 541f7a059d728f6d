/**
 * The expression parser's words for what it did not expect: a token described as a person reads it, the
 * hints for characters that are not the language's, and the messages of the errors chevrotain raises.
 */
import { EOF, tokenMatcher } from 'chevrotain';
import type { IParserErrorMessageProvider, IToken, TokenType } from 'chevrotain';
import { EXPRESSION_TOKENS } from './expression-tokens.js';
import type { GrammarError } from './ast.js';
import { quoteImage, shortImage, unexpected } from './lexing.js';
import { decodeQuoted } from './strings.js';

// prettier-ignore
const { Literal, Identifier, StringLiteral, NumberLiteral, OrOr, AndAnd, EqualityOp, RelationalOp, Bang, LParen, RParen, LBracket, RBracket, Comma } =
  EXPRESSION_TOKENS;

/** Tokens that can start an operand: anything else where a value is expected is a "missing value". */
export const VALUE_STARTS: readonly TokenType[] = [Literal, Identifier, LParen, LBracket, Bang];
/** Tokens after which "after X" makes a message clearer. */
export const OPERATOR_LIKE: readonly TokenType[] = [
  OrOr,
  AndAnd,
  EqualityOp,
  RelationalOp,
  Bang,
  LParen,
  LBracket,
  Comma,
];

export function matchesAny(token: IToken, types: readonly TokenType[]): boolean {
  for (const type of types) if (tokenMatcher(token, type)) return true;
  return false;
}

export function describe(token: IToken): string {
  if (token.tokenType === EOF) return 'the end of the expression';
  if (token.tokenType === StringLiteral) return `the string ${shortImage(token.image)}`;
  if (token.tokenType === NumberLiteral) return `the number ${shortImage(token.image)}`;
  return quoteImage(token.image);
}

const UNKNOWN_HINTS: Record<string, string> = {
  '=': '; did you mean "=="?',
  '&': '; did you mean "&&"?',
  '|': '; did you mean "||"?',
  '-': '; there are no arithmetic operators',
  '+': '; there are no arithmetic operators',
  '*': '; there are no arithmetic operators',
  '/': '; there are no arithmetic operators',
  '${{': '; "${{ }}" cannot be nested inside an expression',
  '}}': '; "}}" closes a "${{" only in a template',
};

export function unknownMessage(image: string): string {
  const hint = Object.hasOwn(UNKNOWN_HINTS, image) ? UNKNOWN_HINTS[image]! : '';
  const plural = image.length > 1 && !hint ? 'characters' : 'character';
  return hint ? `unexpected ${JSON.stringify(image)}${hint}` : `unexpected ${plural} ${quoteImage(image)}`;
}

/** Messages for the errors chevrotain itself raises (rare: the common cases are handled by hand). */
export const messages: IParserErrorMessageProvider = {
  // Chevrotain's in-repetition recovery skips a stray token between call arguments (`f(a 'x', b)`).
  buildMismatchTokenMessage: ({ expected, actual }) =>
    expected === RParen
      ? `expected "," or ")" after an argument but found ${describe(actual)}`
      : `expected ${tokenLabel(expected)} but found ${describe(actual)}`,
  buildNotAllInputParsedMessage: ({ firstRedundant }) => {
    if (tokenMatcher(firstRedundant, RParen)) return 'unexpected ")" without a matching "("';
    if (tokenMatcher(firstRedundant, RBracket)) return 'unexpected "]" without a matching "["';
    if (tokenMatcher(firstRedundant, LParen)) return 'unexpected "("; only a function name can be called';
    return `${unexpected(describe(firstRedundant))}; expected an operator or the end of the expression`;
  },
  buildNoViableAltMessage: ({ actual }) => unexpected(describe(actual[0] ?? eofToken())),
  buildEarlyExitMessage: ({ actual }) => unexpected(describe(actual[0] ?? eofToken())),
};

export function tokenLabel(type: TokenType): string {
  const pattern = type.PATTERN;
  return typeof pattern === 'string' ? JSON.stringify(pattern) : type.name;
}

export function eofToken(): IToken {
  return { image: '', startOffset: NaN, tokenType: EOF } as IToken;
}

export function pb400(message: string, start: number, end: number): GrammarError {
  return { code: 'PB400', message, span: { start, end } };
}

/**
 * The string literals' values, decoded into their tokens' payloads, and their problems (a bad escape, no
 * closing quote) as PB400s; true when one is unterminated (a parse error at its end would only echo it).
 */
export function decodeLiterals(
  text: string,
  offset: number,
  tokens: readonly IToken[],
  afterUnknown: Set<IToken>,
  errors: GrammarError[],
): boolean {
  let unterminated = false;
  for (const token of tokens) {
    if (token.tokenType !== StringLiteral) continue;
    const decoded = decodeQuoted(text, token.startOffset, token.startOffset + token.image.length);
    token.payload = decoded.value;
    if (!decoded.terminated) {
      unterminated = true;
      afterUnknown.add(token); // a parse error at the literal would echo "unterminated"
    }
    for (const problem of decoded.problems)
      errors.push(pb400(problem.message, problem.start + offset, problem.end + offset));
  }
  return unterminated;
}
