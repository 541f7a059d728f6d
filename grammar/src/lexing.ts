/**
 * Lexing helpers shared by the chevrotain-based grammars.
 */
import type { CustomPatternMatcherReturn, IToken, Lexer } from 'chevrotain';
import { scanQuoted } from './strings.js';

/**
 * Whether the lexers and parsers built at module load run chevrotain's self-checks (token patterns,
 * ambiguous alternatives, left recursion, …). Chevrotain asks that they never be skipped while developing;
 * they run in grammar/test/chevrotain-validations.test.ts, which builds every lexer and parser of this
 * package with them and requires no definition error or warning, so a grammar change they object to fails
 * the suite. They stay off in the shipped code because every CLI run and every language-server start
 * builds both grammars, and the checks about double that (three runs of bench/chevrotain-validations.mjs
 * on the busy 2-core development machine: 11 to 30 ms more CPU time, about 5% of a cold `check` of
 * playbooks/pr.yml), while they can find nothing the test has not found: the grammars are fixed when the
 * code is built.
 */
export const VALIDATIONS_IN_PRODUCTION = false;

/** A run of characters no token matched; reported once, by the lexer, and left out of the token stream. */
export interface UnknownRun {
  start: number;
  end: number;
  image: string;
}

export interface LexResult {
  tokens: IToken[];
  unknown: UnknownRun[];
  /**
   * Tokens that directly follow an unknown run. A parse error at such a token (for instance `b` in
   * `a @ b`, which looks like a missing operator once `@` is gone) is an echo of the lexing error.
   */
  afterUnknown: Set<IToken>;
  /** Whether the text ends with an unknown run (then "found the end" parse errors are its echo). */
  endsWithUnknown: boolean;
}

/**
 * Tokenizes `text`. Chevrotain's lexer reports one error per maximal run of characters it could not match;
 * those runs come back as `unknown`, and the parser never sees them.
 */
export function lex(lexer: Lexer, text: string): LexResult {
  const result = lexer.tokenize(text);
  const afterUnknown = new Set<IToken>();
  if (result.errors.length === 0) {
    return { tokens: result.tokens, unknown: [], afterUnknown, endsWithUnknown: false };
  }
  const unknown: UnknownRun[] = [];
  for (const error of result.errors) {
    const start = error.offset;
    const end = Math.min(text.length, start + Math.max(1, error.length));
    const last = unknown[unknown.length - 1];
    if (last !== undefined && last.end === start) {
      // Defensive: merge adjacent runs so that one bad spot stays one error.
      last.end = end;
      last.image = text.slice(last.start, end);
    } else {
      unknown.push({ start, end, image: text.slice(start, end) });
    }
  }
  let t = 0;
  for (const run of unknown) {
    while (t < result.tokens.length && result.tokens[t]!.startOffset < run.end) t++;
    const next = result.tokens[t];
    if (next !== undefined) afterUnknown.add(next);
  }
  const lastRun = unknown[unknown.length - 1]!;
  const lastToken = result.tokens[result.tokens.length - 1];
  const endsWithUnknown = lastToken === undefined || lastToken.startOffset < lastRun.start;
  return { tokens: result.tokens, unknown, afterUnknown, endsWithUnknown };
}

/**
 * A chevrotain custom pattern for a `'…'` or `"…"` literal. An unterminated literal runs to the end of the
 * text (so that the one "unterminated string" error is the only one), and the parser still sees a string.
 */
export function matchQuoted(text: string, offset: number): CustomPatternMatcherReturn | null {
  const c = text.charCodeAt(offset);
  if (c !== 0x27 && c !== 0x22) return null;
  const end = scanQuoted(text, offset);
  return [text.slice(offset, end < 0 ? text.length : end)];
}

/** A token's text shortened for messages. */
export function shortImage(image: string): string {
  return image.length > 24 ? `${image.slice(0, 23)}…` : image;
}

/** A short, quoted rendering of a token's text for messages. */
export function quoteImage(image: string): string {
  return JSON.stringify(shortImage(image));
}

/** Turns "found …" wording (`the end of the type`, `the string 'a'`, `"b"`) into "unexpected …" wording. */
export function unexpected(description: string): string {
  return `unexpected ${description.startsWith('the ') ? description.slice(4) : description}`;
}
