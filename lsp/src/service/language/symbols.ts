/**
 * The named things of a playbook and every place that names them: steps (keys, `needs`, loop targets,
 * `steps.S` in expressions), inputs (keys, `inputs.X`), roles (keys, `role:`, `base:`), outputs (keys,
 * `steps.S.outputs.O`) and outcomes or gate choices (keys, strings compared with `steps.S.outcome`,
 * `report.outcome` and `gate.choice`). Definition, references, rename, hover and highlights read this index.
 */
import type { OffsetRange, StepDecl } from '@kairoku-playbook/compiler';
import type { FileAnalysis } from './types.js';

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
  const context = analysis.semantic;
  if (!model || !context) return index;
  let work = 0;
  const builder = new IndexBuilder(index);
  const symbol = builder.symbol.bind(builder);
  const declare = builder.declare.bind(builder);
  const refer = builder.refer.bind(builder);

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

  // References, as binding resolved them: the compiler's reference index (the YAML structure's needs, roles,
  // role bases and loop targets; the inputs, steps, outputs and outcomes the expressions name).
  for (const reference of context.references) {
    if (++work % SLICE === 0) yield;
    switch (reference.kind) {
      case 'need':
      case 'loop-target':
        if (reference.target) refer(symbol('step', reference.name), reference.range);
        break;
      case 'role':
      case 'role-base':
        if (reference.target) refer(symbol('role', reference.name), reference.range);
        break;
      case 'input':
        if (reference.target) refer(symbol('input', reference.name), reference.range);
        break;
      case 'step':
        if (reference.target) refer(symbol('step', reference.step), reference.range);
        break;
      case 'output': {
        const step = reference.status === 'found' ? model.stepByName.get(reference.step) : undefined;
        if (step) refer(symbol('output', reference.output, step), reference.range);
        break;
      }
      case 'outcome':
        if (reference.owner && reference.target)
          refer(
            symbol('outcome', reference.outcome, reference.owner),
            context.rangeIn(reference.template.text, reference.nameSpan.start, reference.nameSpan.end),
          );
        break;
    }
  }
  index.occurrences.sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end);
  return index;
}

/** Symbols and their occurrences, added to an index as the declarations and references are read. */
class IndexBuilder {
  /** the symbols by kind, owner and name, looked up without building their string keys */
  private readonly byKind = new Map<SymbolKind, Map<StepDecl | undefined, Map<string, PlaybookSymbol>>>();
  /**
   * the ranges each symbol is already referred to at, so a range shared through an alias counts once; a
   * set, since a popular input can have thousands of references (offsets are below 2^26: the compiler
   * reads no file over 8 MiB, so start × 2^26 + end is exact)
   */
  private readonly referred = new Map<PlaybookSymbol, Set<number>>();

  constructor(private readonly index: SymbolIndex) {}

  symbol(kind: SymbolKind, name: string, owner?: StepDecl): PlaybookSymbol {
    let byOwner = this.byKind.get(kind);
    if (!byOwner) this.byKind.set(kind, (byOwner = new Map()));
    let byName = byOwner.get(owner);
    if (!byName) byOwner.set(owner, (byName = new Map()));
    let found = byName.get(name);
    if (!found) {
      const key = symbolKey(kind, name, owner);
      found = this.index.symbols.get(key);
      if (!found) {
        found = { key, kind, name, owner, declaration: undefined, references: [] };
        this.index.symbols.set(key, found);
      }
      byName.set(name, found);
    }
    return found;
  }

  declare(s: PlaybookSymbol, range: OffsetRange | undefined): void {
    if (!range || s.declaration) return;
    s.declaration = range;
    this.index.occurrences.push({ symbol: s, range, isDeclaration: true });
  }

  refer(s: PlaybookSymbol, range: OffsetRange): void {
    let seen = this.referred.get(s);
    if (!seen) this.referred.set(s, (seen = new Set()));
    const at = range.start * 67_108_864 + range.end;
    if (seen.has(at)) return;
    seen.add(at);
    s.references.push(range);
    this.index.occurrences.push({ symbol: s, range, isDeclaration: false });
  }
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
