/**
 * Semantic tokens for the expressions inside `${{ }}` and `when:`: context roots, properties, functions,
 * strings, numbers, operators and the literals true/false/null, at their exact characters in the file
 * (also inside block, folded and quoted scalars, where a token may be written with escapes).
 */
import { CONTEXT_ROOTS, getBuiltinFunction } from '@kairoku-playbook/grammar';
import { expressionsOf } from '../language/expression-at.js';
import { tokenizeExpression } from '../language/expression-tokens.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';

export const TOKEN_TYPES = [
  'variable',
  'property',
  'function',
  'string',
  'number',
  'operator',
  'keyword',
] as const;
export const TOKEN_MODIFIERS = ['readonly', 'defaultLibrary'] as const;

export type TokenType = (typeof TOKEN_TYPES)[number];
export type TokenModifier = (typeof TOKEN_MODIFIERS)[number];

export interface SemanticToken {
  range: OffsetRange;
  type: TokenType;
  modifiers: TokenModifier[];
}

export function semanticTokens(analysis: FileAnalysis): SemanticToken[] {
  const context = analysis.semantic;
  if (!context) return [];
  const result: SemanticToken[] = [];
  for (const info of context.templates) {
    const value = info.text.value;
    for (const { inner } of expressionsOf(info)) {
      const tokens = tokenizeExpression(value, inner.start, inner.end);
      tokens.forEach((token, i) => {
        let type: TokenType | undefined;
        const modifiers: TokenModifier[] = [];
        switch (token.kind) {
          case 'identifier':
            if (tokens[i + 1]?.text === '(') {
              type = 'function';
              if (getBuiltinFunction(token.text)) modifiers.push('defaultLibrary');
            } else if (tokens[i - 1]?.text === '.') type = 'property';
            else {
              type = 'variable';
              if (CONTEXT_ROOTS.includes(token.text)) modifiers.push('readonly', 'defaultLibrary');
            }
            break;
          case 'keyword':
            type = tokens[i - 1]?.text === '.' ? 'property' : 'keyword';
            break;
          case 'string':
            type = 'string';
            break;
          case 'number':
            type = 'number';
            break;
          case 'operator':
            type = 'operator';
            break;
          default:
            break;
        }
        if (!type) return;
        const range = context.rangeIn(info.text, token.start, token.end);
        if (range.end > range.start) result.push({ range, type, modifiers });
      });
    }
  }
  result.sort((a, b) => a.range.start - b.range.start);
  // Tokens never overlap (a defensive pass: two templates never share characters).
  const kept: SemanticToken[] = [];
  for (const token of result) {
    const previous = kept[kept.length - 1];
    if (!previous || token.range.start >= previous.range.end) kept.push(token);
  }
  return kept;
}
