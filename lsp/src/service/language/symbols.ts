/**
 * The named things of a playbook and every place that names them: steps (keys, `needs`, loop targets,
 * `steps.S` in expressions), inputs (keys, `inputs.X`), roles (keys, `role:`, `base:`), outputs (keys,
 * `steps.S.outputs.O`) and outcomes or gate choices (keys, strings compared with `steps.S.outcome`,
 * `report.outcome` and `gate.choice`). Definition, references, rename, hover and highlights read this index.
 */
import type { OffsetRange, StepDecl } from '@kairoku-playbook/compiler';
import { chainOf, comparedStrings, expressionsOf, nameSpanOf, walkExpression } from './expression-at.js';
import { ownerOf } from './scope.js';
import { FIXED_ROLES } from './types.js';
import type { FileAnalysis, TemplateInfo } from './types.js';

export type SymbolKind = 'step' | 'after' | 'input' | 'role' | 'output' | 'outcome';

export interface PlaybookSymbol {
  key: string;
  kind: SymbolKind;
  name: string;
  /** for outputs and outcomes: the step or after-task they belong to */
  owner: StepDecl | undefined;
  /** the declaring key; absent for implicit ones (default outcomes, check outputs, undeclared fixed roles) */
  declaration: OffsetRange | undefined;
  references: OffsetRange[];
}

export interface Occurrence {
  symbol: PlaybookSymbol;
  range: OffsetRange;
  isDeclaration: boolean;
}

export interface SymbolIndex {
  symbols: Map<string, PlaybookSymbol>;
  occurrences: Occurrence[];
}

const indexes = new WeakMap<FileAnalysis, SymbolIndex>();

function ownerKey(step: StepDecl): string {
  return `${step.isAfter ? 'after' : 'steps'}.${step.name}`;
}

export function symbolKey(kind: SymbolKind, name: string, owner?: StepDecl): string {
  return owner ? `${kind}:${ownerKey(owner)}/${name}` : `${kind}:${name}`;
}

/** The symbols of a file and where each occurs; built once per analysis (finishing a warm-up begun). */
export function symbolIndex(analysis: FileAnalysis): SymbolIndex {
  const cached = indexes.get(analysis);
  if (cached) return cached;
  const build = builds.get(analysis) ?? buildIndex(analysis);
  for (let step = build.next(); ; step = build.next())
    if (step.done) {
      builds.delete(analysis);
      indexes.set(analysis, step.value);
      return step.value;
    }
}

/**
 * Builds some of the index, for about `budgetMs`: true once it is built. The server warms an edited
 * document's index this way between requests, so a completion or hover that arrives meanwhile waits
 * for one slice, not for the whole index (a few hundred ms at 8,000 steps).
 */
export function warmSymbolIndex(analysis: FileAnalysis, budgetMs: number): boolean {
  if (indexes.has(analysis)) return true;
  let build = builds.get(analysis);
  if (!build) builds.set(analysis, (build = buildIndex(analysis)));
  const until = performance.now() + budgetMs;
  for (;;) {
    const step = build.next();
    if (step.done) {
      builds.delete(analysis);
      indexes.set(analysis, step.value);
      return true;
    }
    if (performance.now() >= until) return false;
  }
}

const builds = new WeakMap<FileAnalysis, Generator<void, SymbolIndex>>();

/** How many declarations, steps or templates between two looks at the clock. */
const SLICE = 64;

function* buildIndex(analysis: FileAnalysis): Generator<void, SymbolIndex> {
  const index: SymbolIndex = { symbols: new Map(), occurrences: [] };
  const model = analysis.model;
  const context = analysis.context;
  if (!model || !context) return index;
  let work = 0;

  // the symbols by kind, owner and name, looked up without building their string keys
  const byKind = new Map<SymbolKind, Map<StepDecl | undefined, Map<string, PlaybookSymbol>>>();
  const symbol = (kind: SymbolKind, name: string, owner?: StepDecl): PlaybookSymbol => {
    let byOwner = byKind.get(kind);
    if (!byOwner) byKind.set(kind, (byOwner = new Map()));
    let byName = byOwner.get(owner);
    if (!byName) byOwner.set(owner, (byName = new Map()));
    let found = byName.get(name);
    if (!found) {
      const key = symbolKey(kind, name, owner);
      found = index.symbols.get(key);
      if (!found) {
        found = { key, kind, name, owner, declaration: undefined, references: [] };
        index.symbols.set(key, found);
      }
      byName.set(name, found);
    }
    return found;
  };
  const declare = (s: PlaybookSymbol, range: OffsetRange | undefined) => {
    if (!range || s.declaration) return;
    s.declaration = range;
    index.occurrences.push({ symbol: s, range, isDeclaration: true });
  };
  // the ranges each symbol is already referred to at, so a range shared through an alias counts once; a
  // set, since a popular input can have thousands of references (offsets are below 2^26: the compiler
  // reads no file over 8 MiB, so start × 2^26 + end is exact)
  const referred = new Map<PlaybookSymbol, Set<number>>();
  const refer = (s: PlaybookSymbol, range: OffsetRange) => {
    let seen = referred.get(s);
    if (!seen) referred.set(s, (seen = new Set()));
    const at = range.start * 67_108_864 + range.end;
    if (seen.has(at)) return;
    seen.add(at);
    s.references.push(range);
    index.occurrences.push({ symbol: s, range, isDeclaration: false });
  };

  // Declarations.
  for (const input of model.inputs) declare(symbol('input', input.name), input.keyRange);
  for (const role of model.roles.values()) declare(symbol('role', role.name), role.keyRange);
  const all = [...model.steps, ...model.after];
  for (const step of all) {
    if (++work % SLICE === 0) yield;
    declare(symbol(step.isAfter ? 'after' : 'step', step.name), step.keyRange);
    for (const output of step.outputs) declare(symbol('output', output.name, step), output.keyRange);
    for (const outcome of step.outcomes) declare(symbol('outcome', outcome.name, step), outcome.keyRange);
  }

  // References in the YAML structure.
  for (const step of all) {
    if (++work % SLICE === 0) yield;
    for (const need of step.needs) {
      if (model.stepByName.has(need.name)) refer(symbol('step', need.name), need.range);
    }
    if (step.role && model.roles.has(step.role.name)) refer(symbol('role', step.role.name), step.role.range);
    for (const outcome of step.outcomes) {
      const transition = outcome.transition;
      if (transition?.kind === 'loop' && transition.target && model.stepByName.has(transition.target.name))
        refer(symbol('step', transition.target.name), transition.target.range);
    }
  }
  for (const role of model.roles.values()) {
    const base = role.base;
    if (base && (FIXED_ROLES as readonly string[]).includes(base.name))
      refer(symbol('role', base.name), base.range);
  }

  // References in expressions.
  for (const info of context.templates) {
    if (++work % SLICE === 0) yield;
    for (const reference of info.references) {
      switch (reference.kind) {
        case 'input':
          refer(symbol('input', reference.name), reference.range);
          break;
        case 'step':
          refer(symbol('step', reference.step), reference.range);
          break;
        case 'output': {
          const step = model.stepByName.get(reference.step);
          if (step) refer(symbol('output', reference.output, step), reference.range);
          break;
        }
        case 'outcome': {
          const step = model.stepByName.get(reference.step);
          if (step) refer(symbol('outcome', reference.outcome, step), reference.range);
          break;
        }
      }
    }
    for (const { range, step, outcome } of outcomeReferences(analysis, info)) {
      refer(symbol('outcome', outcome, step), range);
    }
    for (const { range, step, output } of reportOutputReferences(analysis, info)) {
      refer(symbol('output', output, step), range);
    }
  }
  index.occurrences.sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
  return index;
}

/** Strings that name an outcome or a gate choice: compared with `steps.S.outcome`, `report.outcome`, `gate.choice`. */
function outcomeReferences(
  analysis: FileAnalysis,
  info: TemplateInfo,
): { range: OffsetRange; step: StepDecl; outcome: string }[] {
  const model = analysis.model!;
  const context = analysis.context!;
  const owner = ownerOf(model, info);
  const found: { range: OffsetRange; step: StepDecl; outcome: string }[] = [];
  for (const { expr } of expressionsOf(info)) {
    for (const { value, span, chain } of comparedStrings(expr)) {
      let step: StepDecl | undefined;
      if (chain.length === 3 && chain[0] === 'steps' && chain[2] === 'outcome')
        step = model.stepByName.get(chain[1]!);
      else if (
        chain.length === 2 &&
        chain[0] === 'report' &&
        chain[1] === 'outcome' &&
        info.outcome !== undefined
      )
        step = owner;
      else if (
        chain.length === 2 &&
        chain[0] === 'gate' &&
        chain[1] === 'choice' &&
        info.outcome !== undefined
      )
        step = owner?.kind === 'gate' ? owner : undefined;
      if (!step || !step.outcomes.some((o) => o.name === value)) continue;
      // The name inside the quotes; a literal written with escapes is referred to as a whole.
      const inner = info.text.value.slice(span.start + 1, span.end - 1) === value;
      const range = inner
        ? context.rangeIn(info.text, span.start + 1, span.end - 1)
        : context.rangeIn(info.text, span.start, span.end);
      found.push({ range, step, outcome: value });
    }
  }
  return found;
}

/** `report.outputs.X` in a step's own transitions: its output X (the compiler records no reference for it). */
function reportOutputReferences(
  analysis: FileAnalysis,
  info: TemplateInfo,
): { range: OffsetRange; step: StepDecl; output: string }[] {
  if (info.outcome === undefined || !info.owner) return [];
  const model = analysis.model!;
  const context = analysis.context!;
  const owner = ownerOf(model, info);
  if (!owner) return [];
  const found: { range: OffsetRange; step: StepDecl; output: string }[] = [];
  for (const { expr } of expressionsOf(info)) {
    for (const node of walkExpression(expr)) {
      const chain = chainOf(node);
      if (chain?.length !== 3 || chain[0] !== 'report' || chain[1] !== 'outputs') continue;
      const output = chain[2]!;
      if (!owner.outputs.some((o) => o.name === output)) continue;
      const span = nameSpanOf(node)!;
      // `['x']`: the name inside the quotes, when written without escapes.
      const quoted = node.kind === 'index';
      const inner = quoted && info.text.value.slice(span.start + 1, span.end - 1) === output;
      const range = inner
        ? context.rangeIn(info.text, span.start + 1, span.end - 1)
        : context.rangeIn(info.text, span.start, span.end);
      found.push({ range, step: owner, output });
    }
  }
  return found;
}

/** The symbol occurrence under a cursor (the narrowest one). */
export function occurrenceAt(analysis: FileAnalysis, offset: number): Occurrence | undefined {
  let best: Occurrence | undefined;
  for (const occurrence of symbolIndex(analysis).occurrences) {
    const { start, end } = occurrence.range;
    if (start > offset) break;
    if (offset > end) continue;
    if (!best || end - start < best.range.end - best.range.start) best = occurrence;
  }
  return best;
}

/** Every range of a symbol: its declaration first (when there is one), then its references in file order. */
export function rangesOf(symbol: PlaybookSymbol, includeDeclaration: boolean): OffsetRange[] {
  const references = [...symbol.references].sort((a, b) => a.start - b.start);
  return includeDeclaration && symbol.declaration ? [symbol.declaration, ...references] : references;
}
