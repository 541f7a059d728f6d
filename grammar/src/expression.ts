/**
 * The expression language of `${{ }}` and `when:` (SPEC §3.6): literals, context names, `.name`, `[index]`,
 * calls of built-in functions, `!`, comparisons, `==`/`!=`, `&&`, `||` and parentheses; and list literals
 * `[a, b]`, `[]` (our extension, so that `default(x, [])` guards a nullable list).
 *
 * Precedence, loosest first: `||`, `&&`, `==` `!=`, `<` `<=` `>` `>=`, `!`, postfix (`.name`, `[i]`).
 *
 * Error handling follows one rule: one mistake gives one error. The parser is a chevrotain embedded-actions
 * parser built once, at the first parse. The places where input is commonly missing (a value, a closing `)` or
 * `]`, a property name) are checked by hand before chevrotain would fail, and recorded as one error with an
 * `error` node (or a skipped closer) standing in, so that the rest of the tree survives for type checking.
 * Those checks run only outside chevrotain's grammar-recording phase, so the recorded grammar is complete.
 * Chevrotain's own recovery (`recoveryEnabled`) remains as a safety net (its in-repetition recovery skips a
 * stray token between call arguments).
 *
 * What gets reported: every lexing problem (a stray character run, an unterminated literal, a bad escape),
 * and at most one syntax error, the earliest (see problems.ts); a syntax error that merely echoes a lexing
 * problem (at the token right after a stray character, or at the end after an unterminated literal) is
 * dropped, and so is leftover input after any other error.
 */
import { EmbeddedActionsParser, EOF, Lexer, tokenMatcher } from 'chevrotain';
import { EXPRESSION_LEXER_TOKENS, EXPRESSION_TOKENS } from './expression-tokens.js';
// prettier-ignore
import { OPERATOR_LIKE, VALUE_STARTS, decodeLiterals, describe, tokenLabel, matchesAny, messages, pb400, unknownMessage } from './expression-messages.js';
import type { IToken, TokenType } from 'chevrotain';
import type { BinaryOperator, Expr, GrammarError, ParseResult, Span } from './ast.js';
import { VALIDATIONS_IN_PRODUCTION, lex, quoteImage, shortImage, unexpected } from './lexing.js';
import { MAX_EXPRESSION_LENGTH, MAX_TREE_HEIGHT, tooDeepMessage } from './limits.js';
import { ProblemCollector } from './problems.js';
import type { Problem } from './problems.js';

// The tokens: expression-tokens.ts; the messages: expression-messages.ts.

// prettier-ignore
const { Name, Literal, Identifier, True, False, Null, NumberLiteral, OrOr, AndAnd, EqualityOp, RelationalOp, Bang, LParen, RParen, LBracket, RBracket, Dot, Comma } =
  EXPRESSION_TOKENS;

// Chevrotain's self-checks (`validations`) are on in grammar/test/chevrotain-validations.test.ts and off
// here; see VALIDATIONS_IN_PRODUCTION in lexing.ts for why.
function createLexer(validations: boolean): Lexer {
  return new Lexer([...EXPRESSION_LEXER_TOKENS], {
    positionTracking: 'onlyOffset',
    ensureOptimizations: false,
    skipValidations: !validations,
  });
}

// ---------------------------------------------------------------------------------------------- parser

class ExpressionParser extends EmbeddedActionsParser {
  /** Added to every span. */
  private offset = 0;
  /** Errors found by the hand-written checks and by chevrotain, as absolute spans. */
  private readonly problems = new ProblemCollector();
  /** Tokens at which a parse error would echo a lexing error. */
  private echoes = new Set<IToken>();
  /** Whether a parse error at the end would echo a lexing error (an unterminated string, a stray character). */
  private endIsEcho = false;
  /** The extent of parenthesized expressions, parentheses included (absolute). */
  private outer = new WeakMap<Expr, Span>();
  /** Heights above 1 of the nodes built so far, parentheses counted (see limits.ts). */
  private heights = new WeakMap<Expr, number>();
  /** Levels open around the rule being parsed: parentheses, `!`, `[` and calls. */
  private nesting = 0;

  constructor(validations: boolean) {
    super([...EXPRESSION_LEXER_TOKENS, Name, Literal, EqualityOp, RelationalOp], {
      recoveryEnabled: true,
      errorMessageProvider: messages,
      skipValidations: !validations,
    });
    this.performSelfAnalysis();
  }

  /** Prepares for one parse. */
  begin(tokens: IToken[], offset: number, echoes: Set<IToken>, endIsEcho: boolean): void {
    this.input = tokens;
    this.offset = offset;
    this.problems.reset();
    this.echoes = echoes;
    this.endIsEcho = endIsEcho;
    this.outer = new WeakMap();
    this.heights = new WeakMap();
    this.nesting = 0;
  }

  /** The errors of the last parse. `earlier` tells whether the lexer already found something. */
  takeProblems(earlier: boolean): Problem[] {
    for (const error of this.errors) {
      this.report(error.token, error.message, error.name === 'NotAllInputParsedException');
    }
    return this.problems.take(earlier);
  }

  // --- rules -----------------------------------------------------------------------------------------

  public expression = this.RULE('expression', (): Expr => this.SUBRULE(this.orExpr), this.recovery());

  private orExpr = this.RULE(
    'orExpr',
    (): Expr => {
      let left = this.SUBRULE(this.andExpr);
      this.MANY(() => {
        const operator = this.CONSUME(OrOr);
        const right = this.SUBRULE2(this.andExpr);
        this.ACTION(() => (left = this.binary('||', left, operator, right)));
      });
      return left;
    },
    this.recovery(),
  );

  private andExpr = this.RULE(
    'andExpr',
    (): Expr => {
      let left = this.SUBRULE(this.equality);
      this.MANY(() => {
        const operator = this.CONSUME(AndAnd);
        const right = this.SUBRULE2(this.equality);
        this.ACTION(() => (left = this.binary('&&', left, operator, right)));
      });
      return left;
    },
    this.recovery(),
  );

  private equality = this.RULE(
    'equality',
    (): Expr => {
      let left = this.SUBRULE(this.relational);
      this.MANY(() => {
        const operator = this.CONSUME(EqualityOp);
        const right = this.SUBRULE2(this.relational);
        this.ACTION(() => (left = this.binary(operator.image as BinaryOperator, left, operator, right)));
      });
      return left;
    },
    this.recovery(),
  );

  private relational = this.RULE(
    'relational',
    (): Expr => {
      let left = this.SUBRULE(this.unary);
      this.MANY(() => {
        const operator = this.CONSUME(RelationalOp);
        const right = this.SUBRULE2(this.unary);
        this.ACTION(() => (left = this.binary(operator.image as BinaryOperator, left, operator, right)));
      });
      return left;
    },
    this.recovery(),
  );

  private unary = this.RULE(
    'unary',
    (): Expr => {
      const missing = this.ACTION(() => this.missingValue());
      if (missing !== undefined) return missing;
      return this.OR([
        {
          ALT: () => {
            const bang = this.CONSUME(Bang);
            this.ACTION(() => this.enter(bang));
            const operand = this.nested(() => this.SUBRULE(this.unary));
            return this.ACTION(() =>
              this.limited(
                {
                  kind: 'unary',
                  operator: '!',
                  operand,
                  span: { start: this.start(bang), end: this.outerSpan(operand).end },
                },
                bang,
                [operand],
              ),
            );
          },
        },
        { ALT: () => this.SUBRULE(this.postfix) },
      ]);
    },
    this.recovery(),
  );

  private postfix = this.RULE(
    'postfix',
    (): Expr => {
      let expr = this.SUBRULE(this.primary);
      this.MANY(() => {
        this.OR([
          {
            ALT: () => {
              const dot = this.CONSUME(Dot);
              const hasName = this.ACTION(() => this.expectName());
              if (hasName === false) {
                this.ACTION(() => (expr = this.errorNode(this.outerSpan(expr).start, this.end(dot))));
                return;
              }
              const name = this.CONSUME(Name);
              this.ACTION(() => {
                expr = this.limited(
                  {
                    kind: 'member',
                    object: expr,
                    property: name.image,
                    propertySpan: this.span(name),
                    span: { start: this.outerSpan(expr).start, end: this.end(name) },
                  },
                  dot,
                  [expr],
                );
              });
            },
          },
          {
            ALT: () => {
              const open = this.CONSUME(LBracket);
              this.ACTION(() => this.enter(open));
              const index = this.nested(() => this.SUBRULE(this.expression));
              const closed = this.ACTION(() => this.expectClose(RBracket, '['));
              const close = closed === false ? undefined : this.CONSUME(RBracket);
              this.ACTION(() => {
                const end = close ? this.end(close) : Math.max(this.outerSpan(index).end, this.end(open));
                expr = this.limited(
                  {
                    kind: 'index',
                    object: expr,
                    index,
                    span: { start: this.outerSpan(expr).start, end },
                  },
                  open,
                  [expr, index],
                );
              });
            },
          },
        ]);
      });
      return expr;
    },
    this.recovery(),
  );

  private primary = this.RULE(
    'primary',
    // eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
    (): Expr =>
      this.OR([
        {
          ALT: () => {
            const token = this.CONSUME(Literal);
            return this.ACTION(() => this.literal(token));
          },
        },
        {
          ALT: () => {
            const name = this.CONSUME(Identifier);
            let call: Expr | undefined;
            this.OPTION(() => {
              const open = this.CONSUME(LParen);
              const args: Expr[] = [];
              this.ACTION(() => this.enter(open));
              // No arguments unless one can start here: in `f( && x` or `g(f(, 1)` the mistake is more likely
              // a missing `)` than a missing value, and going on from there keeps it to one error.
              const empty = this.ACTION(() => !matchesAny(this.LA(1), VALUE_STARTS));
              if (empty !== true) {
                this.nested(() => {
                  args.push(this.SUBRULE(this.expression));
                  this.MANY(() => {
                    this.CONSUME(Comma);
                    args.push(this.SUBRULE2(this.expression));
                  });
                });
              }
              const closed = this.ACTION(() => this.expectClose(RParen, `${shortImage(name.image)}(`));
              const close = closed === false ? undefined : this.CONSUME(RParen);
              this.ACTION(() => {
                const last = args[args.length - 1];
                const end = close
                  ? this.end(close)
                  : Math.max(this.end(open), last ? this.outerSpan(last).end : 0);
                call = this.limited(
                  {
                    kind: 'call',
                    callee: name.image,
                    calleeSpan: this.span(name),
                    args,
                    span: { start: this.start(name), end },
                  },
                  open,
                  args,
                );
              });
            });
            return this.ACTION(
              (): Expr => call ?? { kind: 'identifier', name: name.image, span: this.span(name) },
            );
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME2(LBracket);
            const items: Expr[] = [];
            this.ACTION(() => this.enter(open));
            // `[]` is the empty list; after `[` anything that cannot start a value is a missing `]`.
            const empty = this.ACTION(() => !matchesAny(this.LA(1), VALUE_STARTS));
            if (empty !== true) {
              this.nested(() => {
                items.push(this.SUBRULE4(this.expression));
                this.MANY2(() => {
                  this.CONSUME2(Comma);
                  items.push(this.SUBRULE5(this.expression));
                });
              });
            }
            const closed = this.ACTION(() => this.expectClose(RBracket, '['));
            const close = closed === false ? undefined : this.CONSUME2(RBracket);
            return this.ACTION(() => {
              const last = items[items.length - 1];
              const end = close
                ? this.end(close)
                : Math.max(this.end(open), last ? this.outerSpan(last).end : 0);
              return this.limited(
                { kind: 'list', items, span: { start: this.start(open), end } },
                open,
                items,
              );
            });
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME2(LParen);
            this.ACTION(() => this.enter(open));
            const inner = this.nested(() => this.SUBRULE3(this.expression));
            const closed = this.ACTION(() => this.expectClose(RParen, '('));
            const close = closed === false ? undefined : this.CONSUME2(RParen);
            return this.ACTION(() => {
              const end = close ? this.end(close) : Math.max(this.outerSpan(inner).end, this.end(open));
              const height = this.heightOf(inner) + 1;
              if (height > MAX_TREE_HEIGHT) this.tooDeep(open);
              this.heights.set(inner, height);
              this.outer.set(inner, { start: this.start(open), end });
              return inner;
            });
          },
        },
      ]),
    this.recovery(),
  );

  // --- helpers ---------------------------------------------------------------------------------------

  private recovery(): { recoveryValueFunc: (e: { token: IToken }) => Expr } {
    return {
      recoveryValueFunc: (e) => {
        const at = e.token.tokenType === EOF ? this.endOfPrevious() : this.start(e.token);
        return this.errorNode(at, at);
      },
    };
  }

  private start(token: IToken): number {
    return token.startOffset + this.offset;
  }

  private end(token: IToken): number {
    return token.startOffset + token.image.length + this.offset;
  }

  private span(token: IToken): Span {
    return { start: this.start(token), end: this.end(token) };
  }

  private outerSpan(expr: Expr): Span {
    return this.outer.get(expr) ?? expr.span;
  }

  /** Where the last consumed token ends (or the start of the text). */
  private endOfPrevious(): number {
    const previous = this.LA(0);
    return previous.tokenType === EOF || Number.isNaN(previous.startOffset)
      ? this.offset
      : this.end(previous);
  }

  private errorNode(start: number, end: number): Expr {
    return { kind: 'error', span: { start, end } };
  }

  private binary(operator: BinaryOperator, left: Expr, token: IToken, right: Expr): Expr {
    return this.limited(
      {
        kind: 'binary',
        operator,
        left,
        right,
        operatorSpan: this.span(token),
        span: { start: this.outerSpan(left).start, end: this.outerSpan(right).end },
      },
      token,
      [left, right],
    );
  }

  // --- the height limit (limits.ts) ------------------------------------------------------------------

  private heightOf(expr: Expr): number {
    return this.heights.get(expr) ?? 1;
  }

  /** Parses one more level of nesting (the count is restored whatever happens inside). */
  private nested<T>(parse: () => T): T {
    this.nesting++;
    try {
      return parse();
    } finally {
      this.nesting--;
    }
  }

  /**
   * Before a level opens at `token`: past the limit (the level holds at least a leaf) the parse stops.
   * Recursing on would only risk the stack.
   */
  private enter(token: IToken): void {
    if (this.nesting + 2 > MAX_TREE_HEIGHT) this.tooDeep(token);
  }

  /** `node` if it is within the height limit; else the parse stops, the error at `token`. */
  private limited(node: Expr, token: IToken, children: readonly Expr[]): Expr {
    let height = 0;
    for (const child of children) height = Math.max(height, this.heightOf(child));
    height += 1;
    if (height > MAX_TREE_HEIGHT) this.tooDeep(token);
    if (height > 1) this.heights.set(node, height);
    return node;
  }

  /**
   * Stops the parse: no part of a tree past the limit is kept (`parseExpression` makes it one `error`
   * node). Thrown past chevrotain, which only catches its own recognition errors, so unwinding costs
   * nothing (its error recovery, tried at every level on the way out, took seconds).
   */
  private tooDeep(token: IToken): never {
    this.report(token, tooDeepMessage('expression'));
    throw new TooDeep();
  }

  private literal(token: IToken): Expr {
    const span = this.span(token);
    switch (token.tokenType) {
      case True:
        return { kind: 'literal', value: true, span };
      case False:
        return { kind: 'literal', value: false, span };
      case Null:
        return { kind: 'literal', value: null, span };
      case NumberLiteral: {
        const value = Number(token.image);
        // An expression means what it says: 1e400 would be infinity (and null once in the IR's JSON),
        // 9007199254740993 would be …992.
        if (!Number.isFinite(value))
          this.report(
            token,
            `the number ${shortImage(token.image)} is too large: numbers go up to about 1.8e308`,
          );
        else if (Number.isInteger(value) && !Number.isSafeInteger(value) && /^-?\d+$/.test(token.image))
          this.report(
            token,
            `the integer ${shortImage(token.image)} is too large to be exact: integers go up to 9007199254740991 (2^53 − 1)`,
          );
        return { kind: 'literal', value, span };
      }
      default:
        return { kind: 'literal', value: (token.payload as string | undefined) ?? '', span };
    }
  }

  /** Records a syntax error at `token` unless it echoes one the lexer reported. */
  private report(token: IToken, message: string, leftover = false): void {
    if (this.echoes.has(token)) return; // the lexer said it already
    const isEnd = token.tokenType === EOF || Number.isNaN(token.startOffset);
    if (isEnd && this.endIsEcho) return;
    const span = isEnd ? { start: this.endOfPrevious(), end: this.endOfPrevious() } : this.span(token);
    if (leftover) this.problems.addLeftover({ message, ...span });
    else this.problems.addSyntax({ message, ...span });
  }

  /** When no operand can start at the next token: reports it and returns the `error` node standing in. */
  private missingValue(): Expr | undefined {
    const next = this.LA(1);
    if (matchesAny(next, VALUE_STARTS)) return undefined;
    const previous = this.LA(0);
    const after = matchesAny(previous, OPERATOR_LIKE) ? ` after ${quoteImage(previous.image)}` : '';
    const atEnd = next.tokenType === EOF;
    this.report(
      next,
      atEnd
        ? `expected a value${after} but found the end of the expression`
        : `${unexpected(describe(next))}; expected a value${after}`,
    );
    const at = atEnd ? this.endOfPrevious() : this.start(next);
    return this.errorNode(at, at);
  }

  /** Whether the closer comes next; reports it missing otherwise. */
  private expectClose(closer: TokenType, opener: string): boolean {
    const next = this.LA(1);
    if (tokenMatcher(next, closer)) return true;
    this.report(
      next,
      `expected ${tokenLabel(closer)} to close ${JSON.stringify(opener)} but found ${describe(next)}`,
    );
    return false;
  }

  /** Whether a property name follows `.`; reports it missing otherwise. */
  private expectName(): boolean {
    const next = this.LA(1);
    if (tokenMatcher(next, Name)) return true;
    this.report(next, `expected a property name after "." but found ${describe(next)}`);
    return false;
  }
}

/** Unwinds a parse that went past the height limit. */
class TooDeep extends Error {}

/**
 * A fresh lexer and parser of this grammar, for the test that builds them with chevrotain's validations
 * on; the parsing below builds its own at the first parse (a command that parses none skips that cost).
 */
export function buildExpressionGrammar(validations: boolean): {
  lexer: Lexer;
  parser: EmbeddedActionsParser;
} {
  return buildGrammar(validations);
}
const buildGrammar = (v: boolean) => ({ lexer: createLexer(v), parser: new ExpressionParser(v) });
let built: ReturnType<typeof buildGrammar> | undefined;

// ---------------------------------------------------------------------------------------------- API

/**
 * Parses one expression with the parser (`parseExpression`, parse-expression.ts, builds the commonest
 * ones without it). `offset` is added to every span. The value is present unless the text is empty; after
 * errors it holds `error` nodes where pieces were missing.
 */
export function parseExpressionWithParser(text: string, offset = 0): ParseResult<Expr> {
  if (text.length > MAX_EXPRESSION_LENGTH) {
    // Refused before it is lexed, on the first character past the limit.
    const at = offset + MAX_EXPRESSION_LENGTH;
    return {
      value: { kind: 'error', span: { start: offset, end: offset + text.length } },
      errors: [
        pb400(
          `expression longer than ${MAX_EXPRESSION_LENGTH} characters (${text.length}); split it, or move long text out of it`,
          at,
          at + 1,
        ),
      ],
    };
  }
  const { lexer, parser } = (built ??= buildGrammar(VALIDATIONS_IN_PRODUCTION));
  const { tokens, unknown, afterUnknown, endsWithUnknown } = lex(lexer, text);
  if (tokens.length === 0 && unknown.length === 0) {
    return { value: undefined, errors: [pb400('empty expression', offset, offset + text.length)] };
  }
  const errors: GrammarError[] = [];
  for (const run of unknown)
    errors.push(pb400(unknownMessage(run.image), run.start + offset, run.end + offset));
  const endIsEcho = decodeLiterals(text, offset, tokens, afterUnknown, errors) || endsWithUnknown;

  parser.begin(tokens, offset, afterUnknown, endIsEcho);
  let value: Expr;
  try {
    value = parser.expression();
  } catch (error) {
    if (error instanceof TooDeep) {
      // The whole expression stands as one `error` node: nothing past the limit reaches a later stage.
      value = { kind: 'error', span: { start: offset, end: offset + text.length } };
      for (const problem of parser.takeProblems(errors.length > 0))
        errors.push(pb400(problem.message, problem.start, problem.end));
      return { value, errors: errors.sort((a, b) => a.span.start - b.span.start) };
    }
    if (!(error instanceof RangeError)) throw error;
    // Only a pathologically deep nesting overflows the stack.
    return {
      value: { kind: 'error', span: { start: offset, end: offset + text.length } },
      errors: [pb400('expression is nested too deeply', offset, offset + text.length)],
    };
  }
  for (const problem of parser.takeProblems(errors.length > 0))
    errors.push(pb400(problem.message, problem.start, problem.end));
  errors.sort((a, b) => a.span.start - b.span.start);
  return { value, errors };
}
