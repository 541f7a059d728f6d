/**
 * Chevrotain checks its own definitions (token patterns that can never match or match the empty string,
 * ambiguous or unreachable alternatives, left recursion, duplicate rule names, …) when a lexer or parser is
 * built without `skipValidations`. The shipped grammars skip them for start-up time (VALIDATIONS_IN_PRODUCTION
 * in src/lexing.ts says why); this test builds every lexer and parser with them on instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EmbeddedActionsParser, Lexer } from 'chevrotain';
import { describe, expect, it } from 'vitest';
import { buildExpressionGrammar } from '../src/expression.js';
import { buildTypeExpressionGrammar } from '../src/type-expression.js';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));

/** Every source file that builds a chevrotain lexer or parser, with the function that builds them afresh. */
const GRAMMARS: Record<string, (validations: boolean) => { lexer: Lexer; parser: EmbeddedActionsParser }> = {
  'grammar/src/expression.ts': buildExpressionGrammar,
  'grammar/src/type-expression.ts': buildTypeExpressionGrammar,
};

/** The packages' source files (a new chevrotain grammar anywhere must be listed above). */
function sourceFiles(): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(REPOSITORY, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    let names: string[];
    try {
      names = readdirSync(join(REPOSITORY, entry.name, 'src'), { recursive: true, encoding: 'utf8' });
    } catch {
      continue; // not a package
    }
    for (const name of names)
      if (/\.[cm]?[jt]s$/.test(name)) files.push(`${entry.name}/src/${name.split('\\').join('/')}`);
  }
  return files.sort();
}

describe("chevrotain's grammar validations", () => {
  it('every file that builds a chevrotain lexer or parser is checked here', () => {
    const building = sourceFiles().filter((file) => {
      const text = readFileSync(join(REPOSITORY, file), 'utf8');
      return /from 'chevrotain'/.test(text) && /new Lexer\(|performSelfAnalysis\(/.test(text);
    });
    expect(building).toEqual(Object.keys(GRAMMARS).sort());
  });

  for (const [file, build] of Object.entries(GRAMMARS)) {
    it(`${file}: the lexer and the parser build with validations on, without errors or warnings`, () => {
      // Chevrotain throws on a definition error, with every message; warnings it only prints.
      const { lexer, parser } = build(true);
      expect(lexer.lexerDefinitionErrors).toEqual([]);
      expect((lexer as unknown as { lexerDefinitionWarning: unknown[] }).lexerDefinitionWarning).toEqual([]);
      expect((parser as unknown as { definitionErrors: unknown[] }).definitionErrors).toEqual([]);
    });
  }
});
