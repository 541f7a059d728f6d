import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import type { IGrammar, StateStack } from 'vscode-textmate';

const require = createRequire(import.meta.url);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const INJECTION_SCOPE = 'source.kairoku-playbook.expression-injection';
const grammarFiles: Record<string, string> = {
  'source.yaml': here('./fixtures/yaml-mini.tmLanguage.json'),
  [INJECTION_SCOPE]: here('../textmate/playbook.injection.tmLanguage.json'),
};

let yaml: IGrammar;

beforeAll(async () => {
  const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text: string) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) => {
      const file = grammarFiles[scopeName];
      return file ? textmate.parseRawGrammar(readFileSync(file, 'utf8'), file) : null;
    },
    getInjections: (scopeName) => (scopeName === 'source.yaml' ? [INJECTION_SCOPE] : undefined),
  });
  const grammar = await registry.loadGrammar('source.yaml');
  if (!grammar) throw new Error('the YAML test grammar did not load');
  yaml = grammar;
});

interface Token {
  text: string;
  scopes: string[];
}

function tokenize(lines: string[]): Token[][] {
  let state: StateStack = textmate.INITIAL;
  return lines.map((line) => {
    const result = yaml.tokenizeLine(line, state);
    state = result.ruleStack;
    return result.tokens.map((token) => ({
      text: line.slice(token.startIndex, token.endIndex),
      scopes: token.scopes,
    }));
  });
}

/** The scopes of the `nth` token whose text is exactly `text`. */
function scopesOf(tokens: Token[], text: string, nth = 0): string[] {
  const found = tokens.filter((token) => token.text === text)[nth];
  if (!found)
    throw new Error(`no token ${JSON.stringify(text)} in ${JSON.stringify(tokens.map((t) => t.text))}`);
  return found.scopes;
}

const has = (scopes: string[], prefix: string) => scopes.some((scope) => scope.startsWith(prefix));

describe('TextMate injection grammar', () => {
  it('highlights an expression inside a double-quoted string', () => {
    const [line] = tokenize(['feedback: "Tests failed: ${{ join(inputs.files, \', \') }} now" # note']);
    expect(scopesOf(line!, '${{')).toContain('punctuation.definition.expression.begin.kairoku-playbook');
    expect(scopesOf(line!, '${{')).toContain('string.quoted.double.yaml');
    expect(scopesOf(line!, 'inputs')).toContain('variable.language.kairoku-playbook');
    expect(scopesOf(line!, 'join')).toContain('support.function.kairoku-playbook');
    expect(scopesOf(line!, 'files')).toContain('variable.other.property.kairoku-playbook');
    expect(scopesOf(line!, "', '")).toContain('string.quoted.single.kairoku-playbook');
    expect(scopesOf(line!, '}}')).toContain('punctuation.definition.expression.end.kairoku-playbook');
    expect(has(scopesOf(line!, ' now'), 'meta.embedded')).toBe(false);
    expect(scopesOf(line!, ' note')).toContain('comment.line.number-sign.yaml');
  });

  it('highlights plain scalars, operators, numbers and constants', () => {
    const [line] = tokenize(["when: ${{ steps.plan.outcome == 'done' && !false || len(x) >= 2 }}"]);
    expect(scopesOf(line!, '${{')).toContain('punctuation.definition.expression.begin.kairoku-playbook');
    expect(scopesOf(line!, 'steps')).toContain('variable.language.kairoku-playbook');
    expect(scopesOf(line!, '==')).toContain('keyword.operator.comparison.kairoku-playbook');
    expect(scopesOf(line!, '&&')).toContain('keyword.operator.logical.kairoku-playbook');
    expect(scopesOf(line!, '!')).toContain('keyword.operator.logical.kairoku-playbook');
    expect(scopesOf(line!, 'false')).toContain('constant.language.kairoku-playbook');
    expect(scopesOf(line!, '2')).toContain('constant.numeric.kairoku-playbook');
    expect(scopesOf(line!, 'len')).toContain('support.function.kairoku-playbook');
    expect(scopesOf(line!, '}}')).toContain('punctuation.definition.expression.end.kairoku-playbook');
  });

  it('highlights inside a plain scalar that starts with text', () => {
    const [line] = tokenize(['title: Ship ${{ steps.implement.outputs.branch }}?']);
    expect(scopesOf(line!, '${{')).toContain('string.unquoted.plain.out.yaml');
    expect(scopesOf(line!, '${{')).toContain('punctuation.definition.expression.begin.kairoku-playbook');
    expect(scopesOf(line!, 'branch')).toContain('variable.other.property.kairoku-playbook');
  });

  it('does not close the expression at a "}}" inside a string literal', () => {
    const [line] = tokenize(["x: ${{ format('}}{0}', run.id) }}"]);
    expect(scopesOf(line!, "'}}{0}'")).toContain('string.quoted.single.kairoku-playbook');
    expect(scopesOf(line!, 'run')).toContain('variable.language.kairoku-playbook');
    expect(scopesOf(line!, '}}')).toContain('punctuation.definition.expression.end.kairoku-playbook');
  });

  it('marks $${{ as an escape, not an expression', () => {
    const [line] = tokenize(['x: "literal $${{ inputs.a }}"']);
    expect(scopesOf(line!, '$${{')).toContain('constant.character.escape.kairoku-playbook');
    expect(line!.some((token) => has(token.scopes, 'meta.embedded.expression'))).toBe(false);
  });

  it('leaves comments alone', () => {
    const [line] = tokenize(['# ${{ inputs.a }}']);
    expect(line!.some((token) => has(token.scopes, 'meta.embedded.expression'))).toBe(false);
  });

  it('continues an expression across lines of a block scalar', () => {
    const lines = tokenize(['prompt: |', '  Plan ${{ inputs.task', '    }} now']);
    expect(scopesOf(lines[1]!, 'inputs')).toContain('variable.language.kairoku-playbook');
    expect(scopesOf(lines[2]!, '}}')).toContain('punctuation.definition.expression.end.kairoku-playbook');
  });
});
