import type { Document, Scalar } from 'yaml';
import type { Diagnostic, OffsetRange, QuickFix, RelatedLocation, Severity } from './diagnostic.js';
import type { Code } from './codes.js';
import { CODES } from './codes.js';
import type { Graph } from './graph/graph.js';
import type { InputDecl, PlaybookModel, TextRef } from './model/model.js';
import type { TemplateInfo } from './expressions/template-info.js';
import { buildScalarMap, mapValueRange } from './yaml/scalar-map.js';
import type { ScalarMap } from './yaml/scalar-map.js';

export interface ReportOptions {
  severity?: Severity;
  related?: RelatedLocation[];
  fix?: QuickFix;
}

/** What every check sees: the model, the analyses done before it, and one way to report. */
export class CheckContext {
  readonly diagnostics: Diagnostic[] = [];
  graph!: Graph;
  /** the YAML document the model was built from, for checks that look past the model */
  document: Document.Parsed | undefined;
  /** filled by the expression check: every parsed template and its references */
  templates: TemplateInfo[] = [];
  /**
   * What misspelt references were meant to name, by their did-you-mean (`input\0task`,
   * `output\0plan\0files`): the misspelling is reported, so these do not also look unused.
   */
  readonly meant = new Set<string>();
  private readonly maps = new WeakMap<Scalar, ScalarMap>();
  private names: readonly string[] | undefined;
  private afterNames: ReadonlySet<string> | undefined;
  private inputsByName: ReadonlyMap<string, InputDecl> | undefined;

  constructor(
    readonly file: string,
    readonly text: string,
    readonly model: PlaybookModel,
  ) {}

  /** The steps' names in file order: the candidates of a did-you-mean, built once. */
  get stepNames(): readonly string[] {
    return (this.names ??= this.model.steps.map((s) => s.name));
  }

  /** The input of that name (the first, as the plain value has it), found without a scan per reference. */
  input(name: string): InputDecl | undefined {
    if (!this.inputsByName) {
      const byName = new Map<string, InputDecl>();
      for (const input of this.model.inputs) if (!byName.has(input.name)) byName.set(input.name, input);
      this.inputsByName = byName;
    }
    return this.inputsByName.get(name);
  }

  /** Whether `name` is an after-task's. */
  isAfterTask(name: string): boolean {
    return (this.afterNames ??= new Set(this.model.after.map((a) => a.name))).has(name);
  }

  report(code: Code, range: OffsetRange, message: string, options: ReportOptions = {}): void {
    const diagnostic: Diagnostic = {
      file: this.file,
      range,
      severity: options.severity ?? CODES[code].severity,
      code,
      message,
    };
    if (options.related?.length) diagnostic.related = options.related;
    if (options.fix) diagnostic.fix = options.fix;
    this.diagnostics.push(diagnostic);
  }

  /** The source range of the characters [start, end) of a scalar's decoded value. */
  rangeIn(ref: TextRef, start: number, end: number): OffsetRange {
    let map = this.maps.get(ref.node);
    if (!map) {
      map = buildScalarMap(this.text, ref.node);
      this.maps.set(ref.node, map);
    }
    return mapValueRange(map, start, end);
  }

  related(range: OffsetRange, message: string): RelatedLocation {
    return { file: this.file, range, message };
  }
}

export type Check = (context: CheckContext) => void;
