import type { Document } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import type { Code } from '../codes.js';
import { createDiagnostic, replaceFix, shown } from '../diagnostic.js';
import type { Diagnostic, DiagnosticOptions, OffsetRange, QuickFix } from '../diagnostic.js';
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
    readonly test: {
      /** whether the test's shape has a mistake (PB800): what a misspelt key held is then unknown */
      misshapen: boolean;
      /** the test's text (as parsed), for fixes that write at an entry's indentation */
      text: string;
    },
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

/**
 * The end of a message about a name the test uses that its playbook does not declare (PB803–PB807,
 * PB809): `; did you mean "…"?` for the closest of `declared`, with the quick fix that writes it over the
 * name; `otherwise` (what is declared, say) when none is close.
 */
export function didYouMean(
  site: { name: string; range: OffsetRange },
  declared: readonly string[],
  otherwise: string,
): { hint: string; fix: QuickFix | undefined } {
  const suggestion = closest(site.name, declared);
  return {
    hint: suggestion ? `; did you mean "${shown(suggestion)}"?` : otherwise,
    fix: replaceFix(site.range, suggestion),
  };
}
