/** The tokens of type expressions (type-expression.ts builds their lexer). */
import { createToken, Lexer } from 'chevrotain';
import type { TokenType } from 'chevrotain';
import { matchQuoted } from './lexing.js';

export const WhiteSpace = createToken({
  name: 'WhiteSpace',
  pattern: /\s+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});
/** Any bare word: a type name, an enum member, a field name. */
export const AnyWord = createToken({ name: 'AnyWord', pattern: Lexer.NA });
export const Word = createToken({ name: 'Word', pattern: /[A-Za-z0-9_.-]+/, categories: [AnyWord] });
export const ListKeyword = createToken({
  name: 'List',
  pattern: /list/,
  longer_alt: Word,
  categories: [AnyWord],
});
export const EnumKeyword = createToken({
  name: 'Enum',
  pattern: /enum/,
  longer_alt: Word,
  categories: [AnyWord],
});
export const Quoted = createToken({
  name: 'Quoted',
  pattern: matchQuoted,
  line_breaks: true,
  start_chars_hint: ["'", '"'],
});
export const LAngle = createToken({ name: 'LAngle', pattern: '<' });
export const RAngle = createToken({ name: 'RAngle', pattern: '>' });
export const LParen = createToken({ name: 'LParen', pattern: '(' });
export const RParen = createToken({ name: 'RParen', pattern: ')' });
export const LBrace = createToken({ name: 'LBrace', pattern: '{' });
export const RBrace = createToken({ name: 'RBrace', pattern: '}' });
export const Colon = createToken({ name: 'Colon', pattern: ':' });
export const Comma = createToken({ name: 'Comma', pattern: ',' });
export const Question = createToken({ name: 'Question', pattern: '?' });

export const lexerTokens: TokenType[] = [
  WhiteSpace,
  Quoted,
  ListKeyword,
  EnumKeyword,
  Word,
  LAngle,
  RAngle,
  LParen,
  RParen,
  LBrace,
  RBrace,
  Colon,
  Comma,
  Question,
];
