import type { SemanticModel } from './bind/semantic-model.js';
import type { Code } from './codes.js';
import { createDiagnostic } from './diagnostic.js';
import type { Diagnostic, DiagnosticOptions, OffsetRange, RelatedLocation } from './diagnostic.js';
import type { Graph } from './graph/graph.js';
import type { PlaybookModel, TextRef } from './model/model.js';
import { DEFAULT_POLICY } from './policy-file/policy-file.js';
import type { ApprovalPolicy } from './policy-file/policy-file.js';

/**
 * What every check sees: the semantic model, which it only reads, and one way to report. No check reads
 * what another reports, so the checks may run in any order (compiler/test/check-order.test.ts).
 */
export class CheckContext {
  private readonly found: Diagnostic[] = [];

  /** `policy`: the workspace's approval policy (`.kairoku/policy.yml`), which PB700 reads */
  constructor(
    readonly semantic: SemanticModel,
    readonly policy: ApprovalPolicy = DEFAULT_POLICY,
  ) {}

  get file(): string {
    return this.semantic.file;
  }

  get model(): PlaybookModel {
    return this.semantic.model;
  }

  get graph(): Graph {
    return this.semantic.graph;
  }

  /** The diagnostics reported so far. */
  get diagnostics(): readonly Diagnostic[] {
    return this.found;
  }

  report(code: Code, range: OffsetRange, message: string, options?: DiagnosticOptions): void {
    this.found.push(createDiagnostic(this.semantic.file, code, range, message, options));
  }

  /** The source range of the characters [start, end) of a scalar's decoded value. */
  rangeIn(ref: TextRef, start: number, end: number): OffsetRange {
    return this.semantic.rangeIn(ref, start, end);
  }

  related(range: OffsetRange, message: string): RelatedLocation {
    return { file: this.semantic.file, range, message };
  }
}

/** A check: reads the semantic model, reports what is wrong with its own codes. */
export type Check = (context: CheckContext) => void;
