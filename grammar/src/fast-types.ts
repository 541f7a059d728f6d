/**
 * The fast path of `parseTypeExpression` for well-formed type strings (`string`, `list<string>`,
 * `enum(approve, changes)`, `{ name: string, risk?: number }`, `T?`): their tree, built as the parser
 * builds it, by a small recursive descent, without building the type grammar's lexer and parser
 * (chevrotain's self-analysis, about 15 ms of a `check`). It gives up, returning undefined, at the first
 * thing it does not take as it is: any mistake, quoted members, duplicate members or fields, field names
 * the grammar refuses, empty `enum()` or `{}`, trailing commas, unusual white space, deep nesting. The
 * parser then reads the text and its errors stay the only errors; grammar/test/fast-types.test.ts
 * holds the two equal.
 */
import type { ParseResult, Span, TypeExpr } from './ast.js';
import { MAX_EXPRESSION_LENGTH } from './limits.js';

type Primitive = 'string' | 'number' | 'integer' | 'boolean';
type Field = { name: string; optional: boolean; type: TypeExpr; nameSpan: Span };

const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'number', 'integer', 'boolean']);
/** The grammar's field names (type-expression.ts's FIELD_NAME). */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;
/** Far below the grammar's height limit (limits.ts), so a type the fast path takes never meets it. */
const MAX_NESTING = 16;

/** Thrown to give up: the parser reads the text instead. */
class GiveUp extends Error {}

/** The parse of a well-formed type string, or undefined for any other. */
export function parseWellFormedType(text: string): ParseResult<TypeExpr> | undefined {
  if (text.length > MAX_EXPRESSION_LENGTH) return undefined; // (the parser refuses it)
  try {
    const reader = new TypeReader(text);
    const value = reader.typeExpr(0);
    reader.skipSpace();
    if (reader.at < text.length) return undefined;
    return { value, errors: [] };
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

function isWordChar(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x5f || // _
    code === 0x2e || // .
    code === 0x2d // -
  );
}

class TypeReader {
  at = 0;

  constructor(private readonly text: string) {}

  typeExpr(nesting: number): TypeExpr {
    if (nesting > MAX_NESTING) throw new GiveUp();
    const base = this.baseType(nesting);
    this.skipSpace();
    if (this.text.charCodeAt(this.at) !== 0x3f) return base; // ?
    this.at++;
    return { kind: 'nullable', inner: base, span: { start: base.span.start, end: this.at } };
  }

  private baseType(nesting: number): TypeExpr {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x7b) return this.object(nesting); // {
    const word = this.word();
    if (word.text === 'list') {
      this.expect(0x3c); // <
      const element = this.typeExpr(nesting + 1);
      this.expect(0x3e); // >
      return { kind: 'list', element, span: { start: word.span.start, end: this.at } };
    }
    if (word.text === 'enum') return this.enumeration(word.span.start);
    if (!PRIMITIVES.has(word.text)) throw new GiveUp();
    return { kind: 'primitive', name: word.text as Primitive, span: word.span };
  }

  private enumeration(start: number): TypeExpr {
    this.expect(0x28); // (
    const members: { value: string; span: Span }[] = [];
    const seen = new Set<string>();
    do {
      const member = this.word();
      if (seen.has(member.text)) throw new GiveUp();
      seen.add(member.text);
      members.push({ value: member.text, span: member.span });
    } while (this.accept(0x2c)); // ,
    this.expect(0x29); // )
    return { kind: 'enum', members, span: { start, end: this.at } };
  }

  private object(nesting: number): TypeExpr {
    const start = this.at++;
    const fields: Field[] = [];
    const seen = new Set<string>();
    do {
      const name = this.word();
      if (seen.has(name.text) || !FIELD_NAME.test(name.text)) throw new GiveUp();
      seen.add(name.text);
      const optional = this.accept(0x3f); // ?
      this.expect(0x3a); // :
      const type = this.typeExpr(nesting + 1);
      fields.push({ name: name.text, optional, type, nameSpan: name.span });
    } while (this.accept(0x2c)); // ,
    this.expect(0x7d); // }
    return { kind: 'object', fields, span: { start, end: this.at } };
  }

  /** A bare word (the lexer's Word, keywords included) after optional space. */
  private word(): { text: string; span: Span } {
    this.skipSpace();
    const start = this.at;
    while (isWordChar(this.text.charCodeAt(this.at))) this.at++;
    if (this.at === start) throw new GiveUp();
    return { text: this.text.slice(start, this.at), span: { start, end: this.at } };
  }

  /** Takes the character `code` after optional space if it is there. */
  private accept(code: number): boolean {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) !== code) return false;
    this.at++;
    return true;
  }

  private expect(code: number): void {
    if (!this.accept(code)) throw new GiveUp();
  }

  /** Spaces, tabs and line breaks; any other white space gives up (the lexer's `\s` is wider). */
  skipSpace(): void {
    for (;;) {
      const code = this.text.charCodeAt(this.at);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return;
      this.at++;
    }
  }
}
