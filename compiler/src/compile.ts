import { isMap, isPair, isScalar, isSeq } from 'yaml';
import type { Document, Node, YAMLMap } from 'yaml';
import { bind } from './bind/bind.js';
import type { SemanticModel } from './bind/semantic-model.js';
import { CheckContext } from './check-context.js';
import type { Check } from './check-context.js';
import { duplicateChoices } from './checks/gate-choices.js';
import { CHECKS, surfaceDiagnostics } from './checks/index.js';
import { emptyPlaybook } from './checks/missing-keys.js';
import { keysNotNames } from './checks/shapes.js';
import { boundMessage, sortDiagnostics } from './diagnostic.js';
import type { Diagnostic, OffsetRange } from './diagnostic.js';
import { buildModel } from './model/build-model.js';
import type { PlaybookModel } from './model/model.js';
import { validateSurface } from './schema/validate-surface.js';
import { SourceText } from './source-text.js';
import { DEFAULT_POLICY } from './policy-file/policy-file.js';
import type { ApprovalPolicy } from './policy-file/policy-file.js';
import { applySuppressions } from './suppressions.js';
import { dropDamageFallout } from './yaml/damage.js';
import { YAML_LIMITS, findPair, rangeOf, readYaml, unreadable } from './yaml/read-yaml.js';
import type { YamlSource } from './yaml/read-yaml.js';

/** One file's analysis: its diagnostics and, when it could be read, its model and semantic model. */
export interface FileAnalysis {
  file: string;
  text: string;
  source: SourceText;
  diagnostics: Diagnostic[];
  model: PlaybookModel | undefined;
  /** the bound model the checks read: references resolved, templates typed (see compiler/README.md) */
  semantic: SemanticModel | undefined;
}

export interface AnalyzeOptions {
  /** the checks to run (default: all of them, `CHECKS`); for tests that run them in other orders */
  checks?: readonly Check[];
  /** the workspace's approval policy, from `.kairoku/policy.yml` (default: SPEC §4's gated patterns) */
  policy?: ApprovalPolicy;
}

/** The approval policy each analysis was checked under: an edit's analysis keeps it (incremental.ts). */
const policies = new WeakMap<FileAnalysis, ApprovalPolicy>();

/** The approval policy an analysis was checked under. */
export function policyOf(analysis: FileAnalysis): ApprovalPolicy {
  return policies.get(analysis) ?? DEFAULT_POLICY;
}

/**
 * Analyses one playbook in phases (compiler/README.md): parse the YAML, check it against the surface
 * schema, build the model, bind it into the semantic model, run the checks on that, suppress. Pure: the
 * text comes in, nothing is read or written.
 */
export function analyzeFile(file: string, text: string, options: AnalyzeOptions = {}): FileAnalysis {
  const source = new SourceText(text);
  const analysis: FileAnalysis = {
    file,
    text,
    source,
    diagnostics: [],
    model: undefined,
    semantic: undefined,
  };
  if (options.policy) policies.set(analysis, options.policy);
  const yaml = readYaml(file, text);
  const diagnostics = [...yaml.diagnostics];
  const document = yaml.document;
  const contents = document?.contents;
  // (`---` alone reads as an empty scalar: nothing written is nothing, not a null playbook)
  const nothing =
    contents === null ||
    contents === undefined ||
    (isScalar(contents) && contents.value === null && !contents.source);
  if (!document || nothing) {
    for (const diagnostic of duplicateChoices(file, yaml.duplicateChoices)) diagnostics.push(diagnostic);
    if (!diagnostics.some((d) => d.severity === 'error')) diagnostics.push(emptyPlaybook(file));
    analysis.diagnostics = finish(file, text, diagnostics, source);
    return analysis;
  }
  for (const diagnostic of structureDiagnostics(yaml, document)) diagnostics.push(diagnostic);
  if (isMap(document.contents)) {
    const model = buildModel(file, document, yaml.value, yaml.aliases);
    const steps = model.steps.length + model.after.length;
    if (steps > YAML_LIMITS.maxSteps) {
      // The needs graph takes steps² bits: refuse what no person writes rather than run out of memory.
      const key = findPair(document.contents as YAMLMap, 'steps')?.key;
      diagnostics.push(
        unreadable(
          file,
          rangeOf(key as Node | undefined),
          `too many steps to check (${steps}; the limit is ${YAML_LIMITS.maxSteps}); split the playbook`,
        ),
      );
      analysis.model = model;
      analysis.diagnostics = finish(file, text, diagnostics, source, document);
      return analysis;
    }
    // (the text as parsed: scalar maps read it the way the parser did; it has the same offsets)
    const semantic = bind(file, yaml.parsedText, model, document);
    for (const diagnostic of runChecks(semantic, options)) diagnostics.push(diagnostic);
    analysis.model = model;
    analysis.semantic = semantic;
    bound.set(analysis, yaml);
  }
  analysis.diagnostics = dropDamageFallout(
    finish(file, text, diagnostics, source, document),
    yaml.damaged,
    yaml.document,
  );
  return analysis;
}

/**
 * The bound analyses and what they were read from: what an edit's analysis (incremental.ts) starts from.
 * (Kept beside the analysis, not in it: a caller sees one shape of `FileAnalysis` either way.)
 */
const bound = new WeakMap<FileAnalysis, YamlSource>();

/** What `analyzeFile` read an analysis from, when it bound it. */
export function boundSource(analysis: FileAnalysis): YamlSource | undefined {
  return bound.get(analysis);
}

/** An analysis made from its parts, as `analyzeFile` makes it (incremental.ts, after an edit). */
export function finishBound(
  file: string,
  text: string,
  yaml: YamlSource,
  model: PlaybookModel,
  semantic: SemanticModel,
  policy: ApprovalPolicy = DEFAULT_POLICY,
): FileAnalysis {
  const document = yaml.document!;
  const diagnostics = [...yaml.diagnostics];
  for (const diagnostic of structureDiagnostics(yaml, document)) diagnostics.push(diagnostic);
  for (const diagnostic of runChecks(semantic, { policy })) diagnostics.push(diagnostic);
  const source = new SourceText(text);
  const analysis: FileAnalysis = {
    file,
    text,
    source,
    diagnostics: dropDamageFallout(
      finish(file, text, diagnostics, source, document),
      yaml.damaged,
      yaml.document,
    ),
    model,
    semantic,
  };
  bound.set(analysis, yaml);
  policies.set(analysis, policy);
  return analysis;
}

/** The mistakes found before the model: duplicate gate choices, the surface schema's, keys that are not names. */
function structureDiagnostics(yaml: YamlSource, document: Document.Parsed): Diagnostic[] {
  const file = yaml.file;
  const diagnostics = duplicateChoices(file, yaml.duplicateChoices);
  // (a loop, not push(...): a generated file can have more diagnostics than a call has arguments)
  const surface = surfaceDiagnostics(validateSurface(file, document, yaml.value));
  for (const diagnostic of surface) diagnostics.push(diagnostic);
  if (yaml.keysNotNames.length) {
    const keys = keysNotNames(file, yaml.keysNotNames);
    for (const diagnostic of outside(keys, coveredBy(surface, document))) diagnostics.push(diagnostic);
  }
  return diagnostics;
}

function runChecks(semantic: SemanticModel, options: AnalyzeOptions): readonly Diagnostic[] {
  const context = new CheckContext(semantic, options.policy);
  for (const check of options.checks ?? CHECKS) check(context);
  return context.diagnostics;
}

/**
 * What the schema check's diagnostics speak for: their ranges, and for an unknown or duplicate key also
 * its value (which nothing reads, so what is wrong inside it does not matter).
 */
function coveredBy(surface: readonly Diagnostic[], document: Document.Parsed): OffsetRange[] {
  const keyed = surface.filter((d) => d.code === 'PB102' || d.code === 'PB101');
  const valueEnds = new Map<number, number>();
  if (keyed.length) {
    const stack: unknown[] = [document.contents];
    while (stack.length) {
      const node = stack.pop();
      if (!node || typeof node !== 'object') continue;
      if (isPair(node)) {
        const key = node.key as Node | null;
        const value = node.value as Node | null;
        if (key?.range && value?.range) valueEnds.set(key.range[0], value.range[1]);
        stack.push(node.value);
      } else if (isMap(node) || isSeq(node)) for (const item of node.items as unknown[]) stack.push(item);
    }
  }
  return surface.map(({ code, range }) =>
    code === 'PB102' || code === 'PB101'
      ? { start: range.start, end: Math.max(range.end, valueEnds.get(range.start) ?? range.end) }
      : range,
  );
}

/** The diagnostics of `inner` that no range of `outer` holds: not an echo of what those say. */
function outside(inner: readonly Diagnostic[], outer: readonly OffsetRange[]): Diagnostic[] {
  // Ranges by start, each with the furthest end of those starting at or before it: one that holds a
  // range starting at s and ending at e exists when that furthest end, among starts <= s, reaches e.
  const ranges = [...outer].sort((a, b) => a.start - b.start);
  const furthest: number[] = [];
  for (const range of ranges) furthest.push(Math.max(range.end, furthest[furthest.length - 1] ?? -1));
  return inner.filter(({ range }) => {
    let low = 0;
    let high = ranges.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (ranges[mid]!.start <= range.start) low = mid + 1;
      else high = mid;
    }
    return low === 0 || furthest[low - 1]! < range.end;
  });
}

function finish(
  file: string,
  text: string,
  diagnostics: Diagnostic[],
  source: SourceText,
  document?: Document.Parsed,
): Diagnostic[] {
  // The last guard on echoed text: each message cuts what it quotes, and none is longer than this.
  // Each range is the diagnostic's own copy: the model's ranges move with an edit (incremental.ts), and
  // the diagnostics an analysis returned must not move with them.
  for (const diagnostic of diagnostics) {
    diagnostic.message = boundMessage(diagnostic.message);
    diagnostic.range = { start: diagnostic.range.start, end: diagnostic.range.end };
    if (diagnostic.related)
      diagnostic.related = diagnostic.related.map((related) => ({
        ...related,
        range: { start: related.range.start, end: related.range.end },
        message: boundMessage(related.message),
      }));
    if (diagnostic.fix)
      diagnostic.fix = {
        ...diagnostic.fix,
        edits: diagnostic.fix.edits.map((edit) => ({ ...edit, range: { ...edit.range } })),
      };
  }
  const insideValue = document && text.includes('playbook-ignore') ? scalarSpans(document) : undefined;
  return sortDiagnostics(applySuppressions(file, text, withoutRepeats(diagnostics), source, insideValue));
}

/** Whether an offset lies inside a scalar of the document (where a `#` is text, not a comment). */
function scalarSpans(document: Document.Parsed): (offset: number) => boolean {
  const spans: [number, number][] = [];
  const stack: unknown[] = [document.contents];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (isPair(node)) stack.push(node.key, node.value);
    else if (isScalar(node)) {
      if (node.range) spans.push([node.range[0], node.range[1]]);
    } else if (isMap(node) || isSeq(node)) for (const item of node.items as unknown[]) stack.push(item);
  }
  spans.sort((a, b) => a[0] - b[0]);
  return (offset) => {
    let low = 0;
    let high = spans.length - 1;
    while (low <= high) {
      const mid = (low + high) >> 1;
      const [start, end] = spans[mid]!;
      if (offset < start) high = mid - 1;
      else if (offset >= end) low = mid + 1;
      else return true;
    }
    return false;
  };
}

/** The same diagnostic twice (text shared through a YAML alias is checked once per use) is shown once. */
function withoutRepeats(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.code}\u0000${d.range.start}\u0000${d.range.end}\u0000${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
