/**
 * Completion: inside `${{ }}` and `when:` the context roots, the members after `inputs.`, `steps.`,
 * `steps.S.`, `steps.S.outputs.` (…), outcomes after `steps.S.outcome == '`, and the functions; in the
 * YAML structure the keys valid at the cursor (with their schema descriptions), step names in `needs`, loop
 * targets, roles, and the values the schema lists.
 */
import { BUILTIN_FUNCTIONS } from '@kairoku-playbook/grammar';
import { isPolicyFile } from '@kairoku-playbook/compiler';
import type { ScopeMember, StepDecl } from '@kairoku-playbook/compiler';
import { policyCompletions } from './policy-completion.js';
import { describeRole, describeStep } from '../language/describe.js';
import { expressionIn, templateAt } from '../language/expression-at.js';
import type { ExpressionSite } from '../language/expression-at.js';
import { chainEndingAt, tokenizeExpression } from '../language/expression-tokens.js';
import type { ExpressionToken } from '../language/expression-tokens.js';
import { keysAt, takesNames, valuesAt } from '../language/schema.js';
import { FIXED_ROLES } from '../language/types.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';
import { yamlCursorAt } from '../language/yaml-cursor.js';
import type { YamlCursor } from '../language/yaml-cursor.js';

export type CompletionKind =
  | 'key'
  | 'value'
  | 'step'
  | 'input'
  | 'role'
  | 'output'
  | 'outcome'
  | 'root'
  | 'field'
  | 'function'
  | 'keyword'
  | 'type';

export interface CompletionEntry {
  label: string;
  kind: CompletionKind;
  detail?: string;
  /** Markdown */
  documentation?: string;
  /** replaces `range` */
  insertText: string;
  range: OffsetRange;
  sortText?: string;
}

export function completionsAt(analysis: FileAnalysis, offset: number): CompletionEntry[] {
  if (isPolicyFile(analysis.file)) {
    const cursor = yamlCursorAt(analysis.text, offset);
    return cursor ? policyCompletions(cursor) : [];
  }
  const info = templateAt(analysis, offset);
  if (info) {
    const site = expressionIn(analysis, info, offset);
    // Inside a template but outside `${{ }}`: prose, nothing to offer.
    return site ? expressionCompletions(analysis, site, offset) : [];
  }
  const cursor = yamlCursorAt(analysis.text, offset);
  if (!cursor) return [];
  return cursor.position === 'key' ? keyCompletions(cursor) : valueCompletions(analysis, cursor);
}

// ------------------------------------------------------------------------------------------ expressions

function expressionCompletions(
  analysis: FileAnalysis,
  site: ExpressionSite,
  offset: number,
): CompletionEntry[] {
  // What a place can see is the compiler's answer (its scope provider), never a copy of its rules.
  const scopes = analysis.semantic?.scopes;
  if (!scopes) return [];
  const { context, info, cursor } = site;
  const text = info.text.value;
  const scope = info.scope;
  const tokens = tokenizeExpression(text, site.inner.start, cursor);
  const rangeFrom = (start: number): OffsetRange => ({
    start: start >= cursor ? offset : Math.min(offset, context.rangeIn(info.text, start, start).start),
    end: offset,
  });

  const last = tokens[tokens.length - 1];
  // `steps.S.outcome == '|`: the outcomes of S.
  if (last?.kind === 'string' && !last.terminated && last.end === cursor) {
    const outcomes = comparedOutcomes(analysis, site, tokens, tokens.length - 2);
    return outcomes.map((o, i) => ({
      label: o.name,
      kind: 'outcome',
      detail: o.detail,
      insertText: o.name,
      range: rangeFrom(last.start + 1),
      sortText: String(i).padStart(3, '0'),
    }));
  }
  let i = tokens.length - 1;
  let start = cursor;
  if (last && (last.kind === 'identifier' || last.kind === 'keyword') && last.end === cursor) {
    start = last.start;
    i--;
  }
  const previous = tokens[i];
  if (previous?.text === '.' && previous.end === start) {
    const chain = chainEndingAt(tokens, i - 1);
    const members = chain ? scopes.offeredAfter(scope, chain) : undefined;
    return (members ?? []).map((m, n) => memberEntry(m, rangeFrom(start), n));
  }
  if (previous && start === cursor && !isOperandStart(previous)) {
    // After a complete operand: an operator comes next, nothing to complete.
    return [];
  }
  // `steps.S.outcome == |`: the outcomes of S, quoted.
  if (previous?.text === '==' || previous?.text === '!=') {
    const outcomes = comparedOutcomes(analysis, site, tokens, i);
    if (outcomes.length)
      return outcomes.map((o, n) => ({
        label: `'${o.name}'`,
        kind: 'outcome',
        detail: o.detail,
        insertText: `'${o.name}'`,
        range: rangeFrom(start),
        sortText: String(n).padStart(3, '0'),
      }));
  }
  return [
    ...scopes.rootMembers(scope).map((m, n) => memberEntry(m, rangeFrom(start), n)),
    ...builtinEntries(() => rangeFrom(start)),
  ];
}

/** The built-in functions and `true`, `false`, `null`, after the context's own names. */
function builtinEntries(range: () => OffsetRange): CompletionEntry[] {
  const entries: CompletionEntry[] = [];
  BUILTIN_FUNCTIONS.forEach((fn, n) =>
    entries.push({
      label: fn.name,
      kind: 'function',
      detail: fn.signature,
      documentation: fn.description,
      insertText: fn.name,
      range: range(),
      sortText: `1${String(n).padStart(3, '0')}`,
    }),
  );
  ['true', 'false', 'null'].forEach((word, n) =>
    entries.push({
      label: word,
      kind: 'keyword',
      insertText: word,
      range: range(),
      sortText: `2${n}`,
    }),
  );
  return entries;
}

/** Whether a token leaves an operand to be written next (an operator, `(`, `,`, `[`, or nothing). */
function isOperandStart(token: ExpressionToken): boolean {
  return token.kind === 'operator' || token.text === '(' || token.text === ',' || token.text === '[';
}

/** The outcomes a string compared at `operatorIndex` may name: `steps.S.outcome`, `report.outcome`, `gate.choice`. */
function comparedOutcomes(
  analysis: FileAnalysis,
  site: ExpressionSite,
  tokens: readonly ExpressionToken[],
  operatorIndex: number,
): { name: string; detail: string }[] {
  const operator = tokens[operatorIndex];
  if (operator?.text !== '==' && operator?.text !== '!=') return [];
  const chain = chainEndingAt(tokens, operatorIndex - 1);
  const step = chain ? analysis.semantic?.scopes.outcomesComparedWith(site.info.scope, chain) : undefined;
  if (!step) return [];
  const what = step.kind === 'gate' ? 'choice' : 'outcome';
  return step.outcomes.map((o) => ({ name: o.name, detail: `${what} of ${step.name}` }));
}

const MEMBER_KINDS: Record<ScopeMember['kind'], CompletionKind> = {
  root: 'root',
  input: 'input',
  step: 'step',
  output: 'output',
  field: 'field',
  outcome: 'outcome',
};

function memberEntry(member: ScopeMember, range: OffsetRange, n: number): CompletionEntry {
  const entry: CompletionEntry = {
    label: member.name,
    kind: MEMBER_KINDS[member.kind],
    insertText: member.name,
    range,
    sortText: String(n).padStart(3, '0'),
  };
  if (member.type) entry.detail = member.type;
  if (member.doc) entry.documentation = member.doc;
  return entry;
}

// ------------------------------------------------------------------------------------------------ YAML

/** Keys that do not go with a step kind already chosen (SPEC §3.1): a step has one of prompt, run, gate. */
const EXCLUDED_BY_KIND: Record<string, readonly string[]> = {
  prompt: ['run', 'gate', 'env', 'cwd'],
  run: ['prompt', 'gate', 'role', 'provider', 'model'],
  gate: ['prompt', 'run', 'role', 'provider', 'model', 'env', 'cwd', 'outcomes'],
};

function keyCompletions(cursor: YamlCursor): CompletionEntry[] {
  if (takesNames(cursor.path)) return [];
  const range = { start: cursor.word.start, end: cursor.word.end };
  const present = new Set(cursor.siblings);
  if (cursor.path.length === 2 && (cursor.path[0] === 'steps' || cursor.path[0] === 'after')) {
    for (const kind of Object.keys(EXCLUDED_BY_KIND))
      if (cursor.siblings.includes(kind)) for (const key of EXCLUDED_BY_KIND[kind]!) present.add(key);
  }
  const childIndent = ' '.repeat(cursor.keyColumn + 2);
  return keysAt(cursor.path)
    .filter((key) => !present.has(key.name) || key.name === cursor.word.prefix)
    .map((key, n) => {
      const entry: CompletionEntry = {
        label: key.name,
        kind: 'key',
        insertText: cursor.colonAfter
          ? key.name
          : key.isMapping && !cursor.flow
            ? `${key.name}:\n${childIndent}`
            : `${key.name}: `,
        range,
        sortText: `${key.required ? 0 : 1}${String(n).padStart(3, '0')}`,
      };
      if (key.description) entry.documentation = key.description;
      if (key.required) entry.detail = 'required';
      return entry;
    })
    .sort((a, b) => (a.sortText! < b.sortText! ? -1 : 1));
}

const TYPE_SNIPPETS = ['string', 'number', 'integer', 'boolean', 'list<string>', 'enum(a, b)'];
const TRANSITIONS = ['next', 'fail', 'end', 'retry'];

function valueCompletions(analysis: FileAnalysis, cursor: YamlCursor): CompletionEntry[] {
  const model = analysis.model;
  const path = cursor.path;
  const range = { start: cursor.word.start, end: cursor.word.end };
  const taken = new Set(cursor.siblings);
  const entry = (label: string, kind: CompletionKind, n: number, documentation?: string, detail?: string) => {
    const e: CompletionEntry = {
      label,
      kind,
      insertText: label,
      range,
      sortText: String(n).padStart(3, '0'),
    };
    if (documentation) e.documentation = documentation;
    if (detail) e.detail = detail;
    return e;
  };
  const owner = stepOf(analysis, path);
  const last = path[path.length - 1];

  const scopes = analysis.semantic?.scopes;
  if (scopes && owner && last === 'needs' && path.length === 3) {
    return scopes
      .needCandidates(owner)
      .filter((s) => !taken.has(s.name))
      .map((s, n) => entry(s.name, 'step', n, describeStep(analysis, s)));
  }
  if (scopes && owner && last === 'loop') {
    return scopes
      .loopTargets(owner)
      .map((s, n) =>
        entry(s.name, 'step', n, describeStep(analysis, s), s === owner ? 'this step' : 'ancestor'),
      );
  }
  if (model && owner && last === 'role' && path.length === 3) {
    return [...model.roles.values()].map((r, n) => entry(r.name, 'role', n, describeRole(analysis, r)));
  }
  if (path.length === 3 && path[0] === 'roles' && last === 'base') {
    return FIXED_ROLES.map((r, n) => entry(r, 'role', n));
  }
  if (isTransitionPlace(path)) {
    return TRANSITIONS.map((t, n) => entry(t, 'keyword', n));
  }
  if (
    (path.length === 3 && path[0] === 'inputs' && last === 'type') ||
    (path.length === 4 && (path[0] === 'steps' || path[0] === 'after') && path[2] === 'outputs') ||
    (path.length === 5 &&
      (path[0] === 'steps' || path[0] === 'after') &&
      path[2] === 'outputs' &&
      last === 'type')
  ) {
    return TYPE_SNIPPETS.map((t, n) => entry(t, 'type', n));
  }
  return valuesAt(path)
    .filter((v) => !taken.has(v))
    .map((v, n) => entry(v, 'value', n));
}

function stepOf(analysis: FileAnalysis, path: readonly string[]): StepDecl | undefined {
  const model = analysis.model;
  if (!model || path.length < 2) return undefined;
  if (path[0] === 'steps') return model.stepByName.get(path[1]!);
  if (path[0] === 'after') return model.after.find((s) => s.name === path[1]);
  return undefined;
}

/** Whether a value at this path is a transition: an outcome, a gate choice, its `then`. */
function isTransitionPlace(path: readonly string[]): boolean {
  if (path[0] !== 'steps' && path[0] !== 'after') return false;
  const rest = path.slice(2);
  return (
    (rest.length === 2 && rest[0] === 'outcomes') ||
    (rest.length === 3 && rest[0] === 'gate' && rest[1] === 'choices') ||
    (rest.length === 4 && rest[0] === 'gate' && rest[1] === 'choices' && rest[3] === 'then')
  );
}
