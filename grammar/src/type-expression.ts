/**
 * Type expressions (SPEC §3.5): `string`, `number`, `integer`, `boolean`, `list<T>`, `enum(a, b, "two
 * words")`, `{ name: T, other?: T }` and the postfix `T?`.
 *
 * Same design as the expression parser: one chevrotain embedded-actions parser built once, at the first parse; the
 * usual mistakes are caught by hand-written checks (skipped while chevrotain records the grammar) and give
 * exactly one PB403 each. A trailing comma in `enum(…)` and `{ … }` is accepted. Reported: every lexing
 * problem; then the earliest syntax error (an unknown type name counts as one) if there is one, else every
 * duplicate member or field, invalid field name and empty enum (see problems.ts).
 *
 * The value is `undefined` when a piece of the type could not be recovered at all (an unknown type name, a
 * missing type); otherwise it is present, even after errors such as a duplicate member or a missing `>`.
 */
import { EmbeddedActionsParser, EOF, Lexer, tokenMatcher } from 'chevrotain';
import type { IParserErrorMessageProvider, IToken, TokenType } from 'chevrotain';
import type { GrammarError, ParseResult, Span, TypeExpr } from './ast.js';
import { closest } from './did-you-mean.js';
import { VALIDATIONS_IN_PRODUCTION, lex, quoteImage, shortImage, unexpected } from './lexing.js';
import { MAX_EXPRESSION_LENGTH, MAX_TREE_HEIGHT, tooDeepMessage } from './limits.js';
import { parseWellFormedType } from './fast-types.js';
import { ProblemCollector } from './problems.js';
import type { Problem } from './problems.js';
import { decodeQuoted } from './strings.js';
import {
  AnyWord,
  Colon,
  Comma,
  EnumKeyword,
  LAngle,
  LBrace,
  LParen,
  ListKeyword,
  Question,
  Quoted,
  RAngle,
  RBrace,
  RParen,
  Word,
  lexerTokens,
} from './type-tokens.js';

/** Syntax problems cascade (only the first counts); semantic ones are independent. */
type ProblemKind = 'syntax' | 'semantic' | 'leftover';

// Chevrotain's self-checks (`validations`) are on in grammar/test/chevrotain-validations.test.ts and off
// here; see VALIDATIONS_IN_PRODUCTION in lexing.ts for why.
function createLexer(validations: boolean): Lexer {
  return new Lexer(lexerTokens, {
    positionTracking: 'onlyOffset',
    ensureOptimizations: false,
    skipValidations: !validations,
  });
}

const PRIMITIVES = ['string', 'number', 'integer', 'boolean'] as const;
type PrimitiveName = (typeof PRIMITIVES)[number];
const TYPE_NAMES: readonly string[] = [...PRIMITIVES, 'list', 'enum'];
/** Names people reach for from other languages. */
const ALIASES: Record<string, string> = {
  int: 'integer',
  long: 'integer',
  float: 'number',
  double: 'number',
  decimal: 'number',
  bool: 'boolean',
  str: 'string',
  text: 'string',
  array: 'list',
};
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function isPrimitive(name: string): name is PrimitiveName {
  return (PRIMITIVES as readonly string[]).includes(name);
}

function describe(token: IToken): string {
  if (token.tokenType === EOF) return 'the end of the type';
  if (token.tokenType === Quoted) return `the string ${shortImage(token.image)}`;
  return quoteImage(token.image);
}

function unknownTypeMessage(name: string): string {
  if (name === 'object' || name === 'map' || name === 'dict') {
    return `unknown type ${quoteImage(name)}; write an object type as { name: type, other?: type }`;
  }
  if (name === 'any')
    return 'unknown type "any"; name a type: string, number, integer, boolean, list<T>, enum(…)';
  const suggestion = (Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined) ?? closest(name, TYPE_NAMES);
  return suggestion === undefined
    ? `unknown type ${quoteImage(name)}; expected string, number, integer, boolean, list<T>, enum(…) or { … }`
    : `unknown type ${quoteImage(name)}; did you mean ${JSON.stringify(suggestion)}?`;
}

const messages: IParserErrorMessageProvider = {
  // Chevrotain's in-repetition recovery skips a stray token between enum members or fields.
  buildMismatchTokenMessage: ({ expected, actual }) => {
    const found = describe(actual);
    if (expected === RParen) {
      const hint = tokenMatcher(actual, AnyWord) ? ' (quote a member that contains spaces)' : '';
      return `expected "," or ")" after an enum member but found ${found}${hint}`;
    }
    if (expected === RBrace) return `expected "," or "}" after a field but found ${found}`;
    return `expected ${typeof expected.PATTERN === 'string' ? JSON.stringify(expected.PATTERN) : expected.name} but found ${found}`;
  },
  buildNotAllInputParsedMessage: ({ firstRedundant }) => {
    if (tokenMatcher(firstRedundant, Question)) return 'a type can be made nullable only once';
    return `${unexpected(describe(firstRedundant))} after the type`;
  },
  buildNoViableAltMessage: ({ actual }) => unexpected(describe(actual[0] ?? ({ tokenType: EOF } as IToken))),
  buildEarlyExitMessage: ({ actual }) => unexpected(describe(actual[0] ?? ({ tokenType: EOF } as IToken))),
};

// ---------------------------------------------------------------------------------------------- parser

type Field = { name: string; optional: boolean; type: TypeExpr; nameSpan: Span };
type Member = { value: string; span: Span };

class TypeParser extends EmbeddedActionsParser {
  private readonly problems = new ProblemCollector();
  private echoes = new Set<IToken>();
  private endIsEcho = false;
  /** Set when some piece could not be recovered: the result is then `undefined`. */
  holed = false;
  /** Heights above 1 of the types built so far (see limits.ts). */
  private heights = new WeakMap<TypeExpr, number>();
  /** Levels open around the rule being parsed: `list<` and `{`. */
  private nesting = 0;

  constructor(validations: boolean) {
    super([...lexerTokens, AnyWord], {
      recoveryEnabled: true,
      errorMessageProvider: messages,
      skipValidations: !validations,
    });
    this.performSelfAnalysis();
  }

  begin(tokens: IToken[], echoes: Set<IToken>, endIsEcho: boolean): void {
    this.input = tokens;
    this.problems.reset();
    this.echoes = echoes;
    this.endIsEcho = endIsEcho;
    this.holed = false;
    this.heights = new WeakMap();
    this.nesting = 0;
  }

  /** The errors of the last parse. `earlier` tells whether the lexer already found something. */
  takeProblems(earlier: boolean): Problem[] {
    for (const error of this.errors) {
      this.report(
        error.token,
        error.message,
        error.name === 'NotAllInputParsedException' ? 'leftover' : 'syntax',
      );
    }
    return this.problems.take(earlier);
  }

  public typeExpr = this.RULE(
    'typeExpr',
    (): TypeExpr | undefined => {
      const missing = this.ACTION(() => this.expectType());
      if (missing === false) return undefined;
      let type = this.SUBRULE(this.baseType);
      let nullableSeen = false;
      this.MANY(() => {
        const mark = this.CONSUME(Question);
        this.ACTION(() => {
          if (nullableSeen) {
            this.report(mark, 'a type can be made nullable only once');
            return;
          }
          nullableSeen = true;
          if (type !== undefined) {
            type = this.limited(
              { kind: 'nullable', inner: type, span: { start: type.span.start, end: end(mark) } },
              mark,
              [type],
            );
          }
        });
      });
      return type;
    },
    { recoveryValueFunc: () => this.hole() },
  );

  private baseType = this.RULE(
    'baseType',
    // eslint-disable-next-line max-lines-per-function -- over the bound when the rule came in (2026-12-06): to be split, issue 22
    (): TypeExpr | undefined =>
      this.OR([
        {
          ALT: () => {
            const keyword = this.CONSUME(ListKeyword);
            if (this.ACTION(() => this.expectOpen(LAngle, keyword)) === false) return this.hole();
            const open = this.CONSUME(LAngle);
            this.ACTION(() => this.enter(keyword));
            const element = this.nested(() => this.SUBRULE(this.typeExpr));
            const closed = this.ACTION(() => this.expectClose(RAngle, 'list<'));
            const close = closed === false ? undefined : this.CONSUME(RAngle);
            return this.ACTION((): TypeExpr | undefined => {
              if (element === undefined) return undefined;
              const stop = close ? end(close) : Math.max(element.span.end, end(open));
              return this.limited(
                { kind: 'list', element, span: { start: keyword.startOffset, end: stop } },
                keyword,
                [element],
              );
            });
          },
        },
        {
          ALT: () => {
            const keyword = this.CONSUME(EnumKeyword);
            if (this.ACTION(() => this.expectOpen(LParen, keyword)) === false) return this.hole();
            const open = this.CONSUME(LParen);
            const members: Member[] = [];
            const seen = new Set<string>();
            const addMember = (token: IToken): void => {
              const value = token.tokenType === Quoted ? (token.payload as string) : token.image;
              if (seen.has(value)) {
                this.report(token, `duplicate enum member ${quoteImage(value)}`, 'semantic');
                return;
              }
              seen.add(value);
              members.push({ value, span: span(token) });
            };
            const empty = this.ACTION(() => tokenMatcher(this.LA(1), RParen));
            if (empty === true) {
              this.ACTION(() => this.report(this.LA(1), 'an enum needs at least one member', 'semantic'));
            } else {
              const first = this.SUBRULE(this.enumMember);
              this.ACTION(() => first && addMember(first));
              this.MANY(() => {
                this.CONSUME(Comma);
                const more = this.ACTION(() => !tokenMatcher(this.LA(1), RParen)); // trailing comma
                if (more === false) return;
                const member = this.SUBRULE2(this.enumMember);
                this.ACTION(() => member && addMember(member));
              });
            }
            const closed = this.ACTION(() => this.expectEnumClose());
            const close = closed === false ? undefined : this.CONSUME(RParen);
            return this.ACTION((): TypeExpr => {
              const last = members[members.length - 1];
              const stop = close ? end(close) : Math.max(end(open), last ? last.span.end : 0);
              return { kind: 'enum', members, span: { start: keyword.startOffset, end: stop } };
            });
          },
        },
        {
          ALT: () => {
            const word = this.CONSUME(Word);
            return this.ACTION((): TypeExpr | undefined => {
              if (isPrimitive(word.image)) return { kind: 'primitive', name: word.image, span: span(word) };
              this.report(word, unknownTypeMessage(word.image));
              this.skipGroup();
              return this.hole();
            });
          },
        },
        {
          ALT: () => {
            const open = this.CONSUME(LBrace);
            this.ACTION(() => this.enter(open));
            const fields: Field[] = [];
            const seen = new Set<string>();
            const addField = (field: Field | undefined): void => {
              if (field === undefined) return;
              if (seen.has(field.name)) {
                this.reportSpan(field.nameSpan, `duplicate field ${quoteImage(field.name)}`, 'semantic');
                return;
              }
              seen.add(field.name);
              fields.push(field);
            };
            const empty = this.ACTION(() => tokenMatcher(this.LA(1), RBrace));
            if (empty !== true) {
              this.nested(() => {
                const first = this.SUBRULE(this.field);
                this.ACTION(() => addField(first));
                this.MANY2(() => {
                  this.CONSUME2(Comma);
                  const more = this.ACTION(() => !tokenMatcher(this.LA(1), RBrace)); // trailing comma
                  if (more === false) return;
                  const next = this.SUBRULE2(this.field);
                  this.ACTION(() => addField(next));
                });
              });
            }
            const closed = this.ACTION(() => this.expectClose(RBrace, '{'));
            const close = closed === false ? undefined : this.CONSUME(RBrace);
            return this.ACTION((): TypeExpr => {
              const last = fields[fields.length - 1];
              const stop = close ? end(close) : Math.max(end(open), last ? last.type.span.end : 0);
              return this.limited(
                { kind: 'object', fields, span: { start: open.startOffset, end: stop } },
                open,
                fields.map((field) => field.type),
              );
            });
          },
        },
      ]),
    { recoveryValueFunc: () => this.hole() },
  );

  private enumMember = this.RULE(
    'enumMember',
    (): IToken | undefined => {
      const ok = this.ACTION(() => {
        const next = this.LA(1);
        if (tokenMatcher(next, AnyWord) || tokenMatcher(next, Quoted)) return true;
        this.report(next, `expected an enum member but found ${describe(next)}`);
        return false;
      });
      if (ok === false) return undefined;
      return this.OR([{ ALT: () => this.CONSUME(AnyWord) }, { ALT: () => this.CONSUME(Quoted) }]);
    },
    { recoveryValueFunc: () => undefined },
  );

  private field = this.RULE(
    'field',
    (): Field | undefined => {
      const ok = this.ACTION(() => {
        const next = this.LA(1);
        if (tokenMatcher(next, AnyWord)) return true;
        this.report(next, `expected a field name but found ${describe(next)}`);
        this.holed = true;
        return false;
      });
      if (ok === false) return undefined;
      const name = this.CONSUME(AnyWord);
      let optional = false;
      this.OPTION(() => {
        this.CONSUME(Question);
        optional = true;
      });
      this.ACTION(() => {
        if (!FIELD_NAME.test(name.image)) {
          this.report(
            name,
            `invalid field name ${quoteImage(name.image)}: use letters, digits, "_" and "-"`,
            'semantic',
          );
        }
      });
      const hasColon = this.ACTION(() => {
        const next = this.LA(1);
        if (tokenMatcher(next, Colon)) return true;
        this.report(
          next,
          `expected ":" after the field name ${quoteImage(name.image)} but found ${describe(next)}`,
        );
        return false;
      });
      if (hasColon !== false) this.CONSUME(Colon);
      const type = this.SUBRULE(this.typeExpr);
      return this.ACTION((): Field | undefined =>
        type === undefined ? undefined : { name: name.image, optional, type, nameSpan: span(name) },
      );
    },
    { recoveryValueFunc: () => this.hole() },
  );

  // --- the height limit (limits.ts) ------------------------------------------------------------------

  /** Parses one more level of nesting (the count is restored whatever happens inside). */
  private nested<T>(parse: () => T): T {
    this.nesting++;
    try {
      return parse();
    } finally {
      this.nesting--;
    }
  }

  /** Before a level opens at `token`: past the limit (the level holds at least a leaf) the parse stops. */
  private enter(token: IToken): void {
    if (this.nesting + 2 > MAX_TREE_HEIGHT) this.tooDeep(token);
  }

  /** `type` if it is within the height limit; else the parse stops, the error at `token`. */
  private limited(type: TypeExpr, token: IToken, children: readonly (TypeExpr | undefined)[]): TypeExpr {
    let height = 0;
    for (const child of children) height = Math.max(height, child ? (this.heights.get(child) ?? 1) : 0);
    height += 1;
    if (height > MAX_TREE_HEIGHT) this.tooDeep(token);
    if (height > 1) this.heights.set(type, height);
    return type;
  }

  /** Stops the parse (thrown past chevrotain, which only catches its own errors; see expression.ts). */
  private tooDeep(token: IToken): never {
    this.report(token, tooDeepMessage('type expression'));
    throw new TooDeep();
  }

  // --- helpers ---------------------------------------------------------------------------------------

  private hole(): undefined {
    this.holed = true;
    return undefined;
  }

  private endOfPrevious(): number {
    const previous = this.LA(0);
    return previous.tokenType === EOF || Number.isNaN(previous.startOffset) ? 0 : end(previous);
  }

  private report(token: IToken, message: string, kind: ProblemKind = 'syntax'): void {
    if (this.echoes.has(token)) return;
    const isEnd = token.tokenType === EOF || Number.isNaN(token.startOffset);
    if (isEnd && this.endIsEcho) return;
    this.reportSpan(
      isEnd ? { start: this.endOfPrevious(), end: this.endOfPrevious() } : span(token),
      message,
      kind,
    );
  }

  private reportSpan(at: Span, message: string, kind: ProblemKind): void {
    const problem = { message, ...at };
    if (kind === 'semantic') this.problems.addSemantic(problem);
    else if (kind === 'leftover') this.problems.addLeftover(problem);
    else this.problems.addSyntax(problem);
  }

  /** Whether a type can start at the next token; reports it missing otherwise. */
  private expectType(): boolean {
    const next = this.LA(1);
    if (tokenMatcher(next, AnyWord) || tokenMatcher(next, LBrace)) return true;
    this.report(next, `expected a type but found ${describe(next)}`);
    this.hole();
    return false;
  }

  private expectOpen(opener: TokenType, keyword: IToken): boolean {
    const next = this.LA(1);
    if (tokenMatcher(next, opener)) return true;
    const example = opener === LAngle ? 'list<string>' : 'enum(a, b)';
    this.report(
      keyword,
      `expected ${JSON.stringify(opener.PATTERN)} after ${JSON.stringify(keyword.image)}, as in ${example}`,
    );
    this.skipGroup();
    return false;
  }

  private expectClose(closer: TokenType, opener: string): boolean {
    const next = this.LA(1);
    if (tokenMatcher(next, closer)) return true;
    this.report(
      next,
      `expected ${JSON.stringify(closer.PATTERN)} to close ${JSON.stringify(opener)} but found ${describe(next)}`,
    );
    return false;
  }

  private expectEnumClose(): boolean {
    const next = this.LA(1);
    if (tokenMatcher(next, RParen)) return true;
    const hint =
      tokenMatcher(next, AnyWord) || tokenMatcher(next, Quoted)
        ? ' (separate members with "," and quote a member that contains spaces)'
        : '';
    this.report(next, `expected ")" to close "enum(" but found ${describe(next)}${hint}`);
    return false;
  }

  /** After an unknown type name, skips a `<…>` or `(…)` that follows it, so it gives no second error. */
  private skipGroup(): void {
    const next = this.LA(1);
    const closer = tokenMatcher(next, LAngle) ? RAngle : tokenMatcher(next, LParen) ? RParen : undefined;
    if (closer === undefined) return;
    const opener = next.tokenType;
    let depth = 0;
    for (;;) {
      const token = this.LA(1);
      if (token.tokenType === EOF) return;
      if (token.tokenType === opener) depth++;
      else if (token.tokenType === closer) depth--;
      this.SKIP_TOKEN();
      if (depth === 0) return;
    }
  }
}

function end(token: IToken): number {
  return token.startOffset + token.image.length;
}

function span(token: IToken): Span {
  return { start: token.startOffset, end: end(token) };
}

/** Unwinds a parse that went past the height limit. */
class TooDeep extends Error {}

/**
 * A fresh lexer and parser of this grammar, for the test that builds them with chevrotain's validations
 * on; the parsing below builds its own at the first parse (a command that parses none skips that cost).
 */
export function buildTypeExpressionGrammar(validations: boolean): {
  lexer: Lexer;
  parser: EmbeddedActionsParser;
} {
  return buildGrammar(validations);
}
const buildGrammar = (v: boolean) => ({ lexer: createLexer(v), parser: new TypeParser(v) });
let built: ReturnType<typeof buildGrammar> | undefined;

// ---------------------------------------------------------------------------------------------- API

function pb403(message: string, start: number, end: number): GrammarError {
  return { code: 'PB403', message, span: { start, end } };
}

/** Parses a type expression such as `list<{ a: string, b?: list<integer> }>?`. */
/**
 * Playbooks repeat a handful of type strings (`string`, `list<string>`) thousands of times, so results
 * are kept by text. A result is shared: callers must treat it as read-only, as they do anyway.
 */
const cache = new Map<string, ParseResult<TypeExpr>>();
const CACHE_LIMIT = 2_000;

export function parseTypeExpression(text: string): ParseResult<TypeExpr> {
  let result = cache.get(text);
  if (result) return result;
  result = parseWellFormedType(text) ?? parseTypeExpressionWithParser(text); // (fast-types.ts: most of them)
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(text, result);
  return result;
}

export function parseTypeExpressionWithParser(text: string): ParseResult<TypeExpr> {
  if (text.length > MAX_EXPRESSION_LENGTH) {
    const at = MAX_EXPRESSION_LENGTH;
    return {
      value: undefined,
      errors: [
        pb403(`type expression longer than ${MAX_EXPRESSION_LENGTH} characters (${text.length})`, at, at + 1),
      ],
    };
  }
  const { lexer, parser } = (built ??= buildGrammar(VALIDATIONS_IN_PRODUCTION));
  const { tokens, unknown, afterUnknown, endsWithUnknown } = lex(lexer, text);
  if (tokens.length === 0 && unknown.length === 0) {
    return { value: undefined, errors: [pb403('empty type expression', 0, text.length)] };
  }
  const errors: GrammarError[] = unknown.map((run) =>
    pb403(
      `unexpected ${run.image.length > 1 ? 'characters' : 'character'} ${quoteImage(run.image)}`,
      run.start,
      run.end,
    ),
  );
  let endIsEcho = endsWithUnknown;
  for (const token of tokens) {
    if (token.tokenType !== Quoted) continue;
    const decoded = decodeQuoted(text, token.startOffset, end(token));
    token.payload = decoded.value;
    if (!decoded.terminated) {
      endIsEcho = true;
      afterUnknown.add(token); // a parse error at the literal would echo "unterminated"
    }
    for (const problem of decoded.problems) errors.push(pb403(problem.message, problem.start, problem.end));
  }
  parser.begin(tokens, afterUnknown, endIsEcho);
  let value: TypeExpr | undefined;
  try {
    value = parser.typeExpr();
  } catch (error) {
    if (error instanceof TooDeep) {
      // No part of a type past the limit reaches a later stage.
      for (const problem of parser.takeProblems(errors.length > 0))
        errors.push(pb403(problem.message, problem.start, problem.end));
      return { value: undefined, errors: errors.sort((a, b) => a.span.start - b.span.start) };
    }
    if (!(error instanceof RangeError)) throw error;
    return { value: undefined, errors: [pb403('type expression is nested too deeply', 0, text.length)] };
  }
  for (const problem of parser.takeProblems(errors.length > 0))
    errors.push(pb403(problem.message, problem.start, problem.end));
  errors.sort((a, b) => a.span.start - b.span.start);
  return { value: parser.holed ? undefined : value, errors };
}
