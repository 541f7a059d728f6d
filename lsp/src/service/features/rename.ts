/**
 * Rename a step, input, role, output, outcome or gate choice: its key and every reference (`needs`, loop
 * targets, `role:`, expressions, compared outcome strings), exactly those characters and nothing else.
 * A name the language would not accept, one already taken, or one with a fixed meaning is refused with
 * a reason.
 */
import type { StepDecl } from '@kairoku-playbook/compiler';
import { lineOf } from '../language/describe.js';
import { occurrenceAt, rangesOf } from '../language/symbols.js';
import type { PlaybookSymbol } from '../language/symbols.js';
import { CHECK_OUTPUTS, FIXED_ROLES, NAME_PATTERN } from '../language/types.js';
import type { FileAnalysis, OffsetEdit, OffsetRange } from '../language/types.js';

export type PrepareRenameResult = { range: OffsetRange; placeholder: string } | { error: string };
export type RenameResult = { edits: OffsetEdit[] } | { error: string };

const WHAT: Record<PlaybookSymbol['kind'], string> = {
  step: 'step',
  after: 'after-task',
  input: 'input',
  role: 'role',
  output: 'output',
  outcome: 'outcome',
};

function what(symbol: PlaybookSymbol): string {
  return symbol.kind === 'outcome' && symbol.owner?.kind === 'gate' ? 'choice' : WHAT[symbol.kind];
}

/** Why a symbol cannot be renamed at all, if it cannot. */
function fixedMeaning(symbol: PlaybookSymbol): string | undefined {
  const name = `"${symbol.name}"`;
  if (symbol.kind === 'role' && (FIXED_ROLES as readonly string[]).includes(symbol.name))
    return `${name} is a role of the fixed table; declare a custom role with base: ${symbol.name} instead`;
  if (symbol.kind === 'outcome' && symbol.owner?.kind === 'check')
    return `a check step's outcomes are always "pass" and "fail"`;
  if (!symbol.declaration) {
    if (symbol.kind === 'outcome')
      return `${name} is a default ${what(symbol)}; declare the ${what(symbol)}s to name them`;
    if (symbol.kind === 'output') return `${name} is an output every check step has`;
    return `${name} is not declared in this file`;
  }
  return undefined;
}

export function prepareRenameAt(analysis: FileAnalysis, offset: number): PrepareRenameResult | undefined {
  const occurrence = occurrenceAt(analysis, offset);
  if (!occurrence) return undefined;
  const refused = fixedMeaning(occurrence.symbol);
  if (refused) return { error: `cannot rename: ${refused}` };
  const range = nameRange(analysis.text, occurrence.range, occurrence.symbol.name);
  if (!range) return { error: `cannot rename: "${occurrence.symbol.name}" is written with escapes here` };
  return { range, placeholder: occurrence.symbol.name };
}

export function renameAt(analysis: FileAnalysis, offset: number, newName: string): RenameResult {
  const occurrence = occurrenceAt(analysis, offset);
  if (!occurrence) return { error: 'nothing to rename here' };
  const { symbol } = occurrence;
  const refused = fixedMeaning(symbol);
  if (refused) return { error: `cannot rename: ${refused}` };
  if (newName === symbol.name) return { edits: [] };
  if (!NAME_PATTERN.test(newName))
    return {
      error: `"${newName}" is not a valid ${what(symbol)} name: names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
    };
  const taken = takenNames(analysis, symbol);
  if (taken.has(newName)) return { error: `cannot rename to "${newName}": ${taken.get(newName)}` };

  const edits: OffsetEdit[] = [];
  for (const range of rangesOf(symbol, true)) {
    const exact = nameRange(analysis.text, range, symbol.name);
    if (!exact) {
      return {
        error: `cannot rename: "${symbol.name}" is written with escapes on ${lineOf(analysis, range)}; change that one by hand first`,
      };
    }
    if (!edits.some((e) => e.range.start === exact.start)) edits.push({ range: exact, newText: newName });
  }
  return { edits: edits.sort((a, b) => a.range.start - b.range.start) };
}

/** The characters of `name` in a range holding it plainly or in quotes; undefined when written otherwise. */
function nameRange(text: string, range: OffsetRange, name: string): OffsetRange | undefined {
  const written = text.slice(range.start, range.end);
  if (written === name) return range;
  if (written === `"${name}"` || written === `'${name}'`)
    return { start: range.start + 1, end: range.end - 1 };
  return undefined;
}

/** The names a symbol cannot take, with why. */
function takenNames(analysis: FileAnalysis, symbol: PlaybookSymbol): Map<string, string> {
  const model = analysis.model!;
  const taken = new Map<string, string>();
  const add = (names: Iterable<string>, why: (name: string) => string) => {
    for (const name of names) if (name !== symbol.name && !taken.has(name)) taken.set(name, why(name));
  };
  const owner: StepDecl | undefined = symbol.owner;
  switch (symbol.kind) {
    case 'step':
    case 'after':
      add(
        model.steps.map((s) => s.name),
        (n) => `a step "${n}" already exists`,
      );
      add(
        model.after.map((s) => s.name),
        (n) => `an after-task "${n}" already exists`,
      );
      break;
    case 'input':
      add(
        model.inputs.map((i) => i.name),
        (n) => `an input "${n}" already exists`,
      );
      break;
    case 'role':
      add(FIXED_ROLES, (n) => `"${n}" is a role of the fixed table`);
      add(model.roles.keys(), (n) => `a role "${n}" already exists`);
      break;
    case 'output':
      if (owner?.kind === 'check') add(CHECK_OUTPUTS, (n) => `every check step has an output "${n}"`);
      add(
        owner?.outputs.map((o) => o.name) ?? [],
        (n) => `step "${owner!.name}" already has an output "${n}"`,
      );
      break;
    case 'outcome':
      add(
        owner?.outcomes.map((o) => o.name) ?? [],
        (n) =>
          `step "${owner!.name}" already has ${owner!.kind === 'gate' ? 'a choice' : 'an outcome'} "${n}"`,
      );
      break;
  }
  return taken;
}
