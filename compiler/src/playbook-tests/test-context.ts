import type { Document } from 'yaml';
import type { Code } from '../codes.js';
import { createDiagnostic } from '../diagnostic.js';
import type { Diagnostic, DiagnosticOptions, OffsetRange } from '../diagnostic.js';
import type { PlaybookModel, StepDecl } from '../model/model.js';
import type { TestSite } from './sites.js';

/**
 * What every check of a playbook test sees: the test's YAML and the names it uses, the model of its
 * playbook (which compiled without errors), and one way to report.
 */
export class TestCheckContext {
  private readonly found: Diagnostic[] = [];

  constructor(
    readonly file: string,
    readonly document: Document.Parsed,
    readonly sites: readonly TestSite[],
    readonly playbook: PlaybookModel,
  ) {}

  get diagnostics(): readonly Diagnostic[] {
    return this.found;
  }

  report(code: Code, range: OffsetRange, message: string, options?: DiagnosticOptions): void {
    this.found.push(createDiagnostic(this.file, code, range, message, options));
  }

  /** The playbook as messages name it: its file name (the test is beside it). */
  get playbookName(): string {
    return this.playbook.file.slice(this.playbook.file.lastIndexOf('/') + 1);
  }

  /** A step (or, with `after`, an after-task) of the playbook by name. */
  stepNamed(name: string, after: boolean): StepDecl | undefined {
    return after ? this.playbook.after.find((s) => s.name === name) : this.playbook.stepByName.get(name);
  }
}

export type TestCheck = (context: TestCheckContext) => void;
