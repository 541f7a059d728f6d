/**
 * The tokens of the expression language (expression.ts builds their lexer and parser), kept in one
 * object so their names (WhiteSpace, Comma, …) stay the expression language's own.
 */
import { createToken, Lexer } from 'chevrotain';
import type { TokenType } from 'chevrotain';
import { matchQuoted } from './lexing.js';

const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /\s+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});
/** Anything that may follow `.`: identifiers and the keyword literals (an output may be called `null`). */
const Name = createToken({ name: 'Name', pattern: Lexer.NA });
const Literal = createToken({ name: 'Literal', pattern: Lexer.NA });
const Identifier = createToken({
  name: 'Identifier',
  pattern: /[A-Za-z_][A-Za-z0-9_-]*/,
  categories: [Name],
});
const True = createToken({
  name: 'True',
  pattern: /true/,
  longer_alt: Identifier,
  categories: [Name, Literal],
});
const False = createToken({
  name: 'False',
  pattern: /false/,
  longer_alt: Identifier,
  categories: [Name, Literal],
});
const Null = createToken({
  name: 'Null',
  pattern: /null/,
  longer_alt: Identifier,
  categories: [Name, Literal],
});
const StringLiteral = createToken({
  name: 'StringLiteral',
  pattern: matchQuoted,
  line_breaks: true,
  start_chars_hint: ["'", '"'],
  categories: [Literal],
});
const NumberLiteral = createToken({
  name: 'NumberLiteral',
  pattern: /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/,
  categories: [Literal],
});
const OrOr = createToken({ name: 'OrOr', pattern: '||' });
const AndAnd = createToken({ name: 'AndAnd', pattern: '&&' });
const EqualityOp = createToken({ name: 'EqualityOp', pattern: Lexer.NA });
const Eq = createToken({ name: 'Eq', pattern: '==', categories: [EqualityOp] });
const NotEq = createToken({ name: 'NotEq', pattern: '!=', categories: [EqualityOp] });
const RelationalOp = createToken({ name: 'RelationalOp', pattern: Lexer.NA });
const LtEq = createToken({ name: 'LtEq', pattern: '<=', categories: [RelationalOp] });
const GtEq = createToken({ name: 'GtEq', pattern: '>=', categories: [RelationalOp] });
const Lt = createToken({ name: 'Lt', pattern: '<', categories: [RelationalOp] });
const Gt = createToken({ name: 'Gt', pattern: '>', categories: [RelationalOp] });
const Bang = createToken({ name: 'Bang', pattern: '!' });
const LParen = createToken({ name: 'LParen', pattern: '(' });
const RParen = createToken({ name: 'RParen', pattern: ')' });
const LBracket = createToken({ name: 'LBracket', pattern: '[' });
const RBracket = createToken({ name: 'RBracket', pattern: ']' });
const Dot = createToken({ name: 'Dot', pattern: '.' });
const Comma = createToken({ name: 'Comma', pattern: ',' });

const lexerTokens: TokenType[] = [
  WhiteSpace,
  StringLiteral,
  NumberLiteral,
  True,
  False,
  Null,
  Identifier,
  OrOr,
  AndAnd,
  Eq,
  NotEq,
  LtEq,
  GtEq,
  Lt,
  Gt,
  Bang,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Dot,
  Comma,
];

export const EXPRESSION_TOKENS = {
  WhiteSpace,
  Name,
  Literal,
  Identifier,
  True,
  False,
  Null,
  StringLiteral,
  NumberLiteral,
  OrOr,
  AndAnd,
  EqualityOp,
  Eq,
  NotEq,
  RelationalOp,
  LtEq,
  GtEq,
  Lt,
  Gt,
  Bang,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Dot,
  Comma,
};

/** The lexer's tokens, in the order it tries them. */
export const EXPRESSION_LEXER_TOKENS: readonly TokenType[] = lexerTokens;
