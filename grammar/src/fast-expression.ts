/**
 * A hand-written parser for well-formed expressions: the tree the chevrotain parser (expression.ts) builds
 * for the same text, without building that parser (about 20 ms of a cold `check`) or running it. It gives
 * up — undefined — at the first thing it does not accept as written: any character the lexer would not
 * take, an unterminated or badly escaped string, a number too large to be exact, a missing value, closer
 * or name, leftover text, or nesting beyond a depth far below the limit. The chevrotain parser then takes
 * the text, so every error, its recovery and its message stay that parser's alone.
 * grammar/test/fast-expression.test.ts holds the two equal on generated expressions, well formed and not.
 *
 * The lexer follows expression-tokens.ts in its order: space, a string, a number (`-?\d+…`, before names),
 * a name (`true`, `false`, `null` when the whole name), then the operators, two-character ones first.
 */
import type { BinaryOperator, Expr, Span } from './ast.js';
import { decodeQuoted, scanQuoted } from './strings.js';

type Kind = 'literal' | 'name' | 'keyword' | BinaryOperator | '!' | '(' | ')' | '[' | ']' | '.' | ',' | 'end';

interface Token {
  kind: Kind;
  start: number;
  end: number;
  image: string;
  /** a literal's value */
  value?: string | number | boolean | null;
}

const SPACE = /\s+/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_-]*/y;
const KEYWORDS = new Map<string, boolean | null>([
  ['true', true],
  ['false', false],
  ['null', null],
]);
const OPERATORS = ['||', '&&', '==', '!=', '<=', '>=', '<', '>', '!', '(', ')', '[', ']', '.', ','] as const;
/**
 * Well below MAX_TREE_HEIGHT (64), counted as the parser counts (limits.ts): deeper or taller expressions go
 * to the parser, which enforces the limit.
 */
const MAX_DEPTH = 24;
const MAX_HEIGHT = 48;

/** Matches `pattern` (sticky) at `at`: the image, or undefined. */
function matchAt(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/** A string or number literal at `at`, or null when none starts there; undefined: give up. */
function literalAt(text: string, at: number): Token | null | undefined {
  const c = text.charCodeAt(at);
  if (c === 0x27 || c === 0x22) {
    const end = scanQuoted(text, at);
    if (end < 0) return undefined;
    const decoded = decodeQuoted(text, at, end);
    if (decoded.problems.length) return undefined;
    return { kind: 'literal', start: at, end, image: text.slice(at, end), value: decoded.value };
  }
  const number = matchAt(NUMBER, text, at);
  if (number === undefined) return null;
  const value = Number(number);
  const inexact = Number.isInteger(value) && !Number.isSafeInteger(value) && /^-?\d+$/.test(number);
  if (!Number.isFinite(value) || inexact) return undefined;
  return { kind: 'literal', start: at, end: at + number.length, image: number, value };
}

/** The tokens of `text`, ending with an `end` token; undefined where the lexer would report something. */
function tokenize(text: string): Token[] | undefined {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const space = matchAt(SPACE, text, at);
    if (space !== undefined) {
      at += space.length;
      continue;
    }
    const literal = literalAt(text, at);
    if (literal === undefined) return undefined;
    if (literal === null) {
      const name = matchAt(NAME, text, at);
      if (name !== undefined) {
        const keyword = KEYWORDS.has(name);
        const token: Token = {
          kind: keyword ? 'keyword' : 'name',
          start: at,
          end: at + name.length,
          image: name,
        };
        if (keyword) token.value = KEYWORDS.get(name)!;
        tokens.push(token);
      } else {
        const operator = OPERATORS.find((o) => text.startsWith(o, at));
        if (!operator) return undefined;
        tokens.push({ kind: operator, start: at, end: at + operator.length, image: operator });
      }
    } else tokens.push(literal);
    at = tokens[tokens.length - 1]!.end;
  }
  tokens.push({ kind: 'end', start: text.length, end: text.length, image: '' });
  return tokens;
}

/** Gives up on the text: the chevrotain parser takes it. */
class GiveUp extends Error {}

const BINARY_LEVELS: readonly (readonly BinaryOperator[])[] = [
  ['||'],
  ['&&'],
  ['==', '!='],
  ['<', '<=', '>', '>='],
];

class FastParser {
  private at = 0;
  private depth = 0;
  /** the extent of parenthesized expressions, parentheses included */
  private readonly outer = new WeakMap<Expr, Span>();
  /** heights above 1, parentheses counted */
  private readonly heights = new WeakMap<Expr, number>();

  constructor(
    private readonly tokens: Token[],
    private readonly offset: number,
  ) {}

  parse(): Expr {
    const expr = this.binary(0);
    if (this.peek().kind !== 'end') throw new GiveUp();
    return expr;
  }

  private peek(): Token {
    return this.tokens[this.at]!;
  }

  private take(kind: Kind): Token {
    const token = this.peek();
    if (token.kind !== kind) throw new GiveUp();
    this.at++;
    return token;
  }

  private span(token: Token): Span {
    return { start: token.start + this.offset, end: token.end + this.offset };
  }

  private outerSpan(expr: Expr): Span {
    return this.outer.get(expr) ?? expr.span;
  }

  private heightOf(expr: Expr): number {
    return this.heights.get(expr) ?? 1;
  }

  /** `node`, its height recorded (one more than its tallest child's); past MAX_HEIGHT, give up. */
  private built(node: Expr, children: readonly Expr[]): Expr {
    const height = 1 + Math.max(0, ...children.map((child) => this.heightOf(child)));
    if (height > MAX_HEIGHT) throw new GiveUp();
    if (height > 1) this.heights.set(node, height);
    return node;
  }

  /** One more level of nesting: parentheses, `!`, `[` and calls. */
  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new GiveUp();
    const value = parse();
    this.depth--;
    return value;
  }

  /** `||`, `&&`, equality and comparison, left to right at each level, loosest first. */
  private binary(level: number): Expr {
    if (level === BINARY_LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    while ((BINARY_LEVELS[level] as readonly string[]).includes(this.peek().kind)) {
      const operator = this.tokens[this.at++]!;
      const right = this.binary(level + 1);
      const span = { start: this.outerSpan(left).start, end: this.outerSpan(right).end };
      const operatorSpan = this.span(operator);
      const kind = operator.kind as BinaryOperator;
      left = this.built({ kind: 'binary', operator: kind, left, right, operatorSpan, span }, [left, right]);
    }
    return left;
  }

  private unary(): Expr {
    if (this.peek().kind !== '!') return this.postfix();
    const bang = this.take('!');
    const operand = this.nested(() => this.unary());
    const span = { start: this.span(bang).start, end: this.outerSpan(operand).end };
    return this.built({ kind: 'unary', operator: '!', operand, span }, [operand]);
  }

  private postfix(): Expr {
    let expr = this.primary();
    for (;;) {
      const next = this.peek();
      if (next.kind === '.') {
        this.at++;
        const name = this.peek();
        if (name.kind !== 'name' && name.kind !== 'keyword') throw new GiveUp();
        this.at++;
        const propertySpan = this.span(name);
        const span = { start: this.outerSpan(expr).start, end: propertySpan.end };
        expr = this.built({ kind: 'member', object: expr, property: name.image, propertySpan, span }, [expr]);
      } else if (next.kind === '[') {
        this.at++;
        const index = this.nested(() => this.binary(0));
        const close = this.take(']');
        const span = { start: this.outerSpan(expr).start, end: this.span(close).end };
        expr = this.built({ kind: 'index', object: expr, index, span }, [expr, index]);
      } else return expr;
    }
  }

  private primary(): Expr {
    const token = this.peek();
    if (token.kind === 'literal' || token.kind === 'keyword') {
      this.at++;
      return { kind: 'literal', value: token.value!, span: this.span(token) };
    }
    if (token.kind === 'name') {
      this.at++;
      if (this.peek().kind !== '(') return { kind: 'identifier', name: token.image, span: this.span(token) };
      this.at++;
      const args = this.nested(() => this.items(')'));
      const close = this.take(')');
      const span = { start: this.span(token).start, end: this.span(close).end };
      return this.built(
        { kind: 'call', callee: token.image, calleeSpan: this.span(token), args, span },
        args,
      );
    }
    if (token.kind === '[') {
      this.at++;
      const items = this.nested(() => this.items(']'));
      const close = this.take(']');
      const span = { start: this.span(token).start, end: this.span(close).end };
      return this.built({ kind: 'list', items, span }, items);
    }
    if (token.kind !== '(') throw new GiveUp();
    this.at++;
    const inner = this.nested(() => this.binary(0));
    const close = this.take(')');
    this.outer.set(inner, { start: this.span(token).start, end: this.span(close).end });
    const height = this.heightOf(inner) + 1;
    if (height > MAX_HEIGHT) throw new GiveUp();
    this.heights.set(inner, height);
    return inner;
  }

  /** The expressions of a call's arguments or a list, separated by commas, up to `closer` (not taken). */
  private items(closer: ')' | ']'): Expr[] {
    const items: Expr[] = [];
    if (this.peek().kind === closer) return items;
    items.push(this.binary(0));
    while (this.peek().kind === ',') {
      this.at++;
      items.push(this.binary(0));
    }
    return items;
  }
}

/** The tree of a well-formed expression, spans moved by `offset`; undefined for anything else. */
export function parseWellFormed(text: string, offset: number): Expr | undefined {
  const tokens = tokenize(text);
  if (!tokens || tokens.length === 1) return undefined;
  try {
    return new FastParser(tokens, offset).parse();
  } catch (error) {
    if (error instanceof GiveUp || error instanceof RangeError) return undefined;
    throw error;
  }
}
