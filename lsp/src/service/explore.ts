/**
 * PB310 and PB311 in the language server, exactly as `check --explore` reports them: each playbook the
 * check found no error in is compiled and explored (the machine's `explorePlaybook`, which the CLI's
 * check runs too), its findings join its diagnostics, and the compiler's PB903 on a `# playbook-ignore`
 * comment that silenced one of them goes. Each playbook is explored again only when its text changed (and
 * not after an edit inside a template no run depends on: its findings move with the text), and
 * within a wall-clock budget the server gives (`budgetMs`): when it runs out, PB310 is not reported for
 * that text (as `check --explore` does past its 30 s) and a note says so, which the server logs.
 */
import { sortDiagnostics, templateEditOf } from '@kairoku-playbook/compiler';
import type { Diagnostic, FileAnalysis } from '@kairoku-playbook/compiler';
import { budgetRanOut, explorePlaybook, isExplored, movedExploration } from '@kairoku-playbook/machine';
import type { ExploredPlaybook } from '@kairoku-playbook/machine';

/** Where the explorer finds a playbook's name and text (the workspace's). */
export interface ExploredFiles {
  fileOf(uri: string): string;
  /** the text the check read, or undefined for a file it did not read */
  textOf(file: string): string | undefined;
  /** the playbook's analysis of that text, if the check made one */
  analysisOf(file: string): FileAnalysis | undefined;
}

export class WorkspaceExplorer {
  /** the last exploration of each file, with the text it was made from */
  private explored = new Map<string, { text: string; result: ExploredPlaybook | undefined }>();

  constructor(private readonly budgetMs: number) {}

  /**
   * Adds explore's diagnostics to each file's list (`byUri`, the check's, changed in place) and returns
   * the notes of the explorations that ran out of budget now (none for a text explored before).
   */
  apply(byUri: readonly Map<string, Diagnostic[]>[], files: ExploredFiles): string[] {
    const notes: string[] = [];
    const seen = new Map<string, { text: string; result: ExploredPlaybook | undefined }>();
    for (const diagnostics of byUri) {
      for (const [uri, list] of diagnostics) {
        const file = files.fileOf(uri);
        const text = files.textOf(file);
        const errors = list.some((d) => d.severity === 'error' && d.file === file);
        if (text === undefined || !isExplored(file, errors)) continue;
        let entry = this.explored.get(file);
        if (entry?.text !== text) {
          const moved = entry && this.moved(entry, text, files.analysisOf(file));
          entry = { text, result: moved ?? explorePlaybook(file, text, { maxMillis: this.budgetMs }) };
          if (!moved && entry.result && !entry.result.complete) notes.push(this.note(file, entry.result));
        }
        seen.set(file, entry);
        const { result } = entry;
        if (!result || (!result.diagnostics.length && !result.used.length)) continue;
        const used = (d: Diagnostic) =>
          d.code === 'PB903' &&
          result.used.some((range) => range.start === d.range.start && range.end === d.range.end);
        diagnostics.set(uri, sortDiagnostics([...list.filter((d) => !used(d)), ...result.diagnostics]));
      }
    }
    this.explored = seen;
    return notes;
  }

  /**
   * The previous exploration moved with the text, when the analysis of the new text came from the explored
   * one by an edit inside a template no run depends on (a prompt, a command, …): the runs are the same, so
   * typing in a prompt does not explore the playbook again (nor compile it a second time to do so).
   */
  private moved(
    previous: { text: string; result: ExploredPlaybook | undefined },
    text: string,
    analysis: FileAnalysis | undefined,
  ): ExploredPlaybook | undefined {
    const edit = analysis?.text === text ? templateEditOf(analysis) : undefined;
    if (!edit || !previous.result || edit.before !== previous.text) return undefined;
    return movedExploration(previous.result, text, edit);
  }

  /** The bounds of a run of the playbook in `file` as explored from `text` (undefined: not explored). */
  boundsOf(file: string, text: string): ExploredPlaybook['bounds'] | undefined {
    const entry = this.explored.get(file);
    return entry?.text === text ? entry.result?.bounds : undefined;
  }

  private note(file: string, result: ExploredPlaybook): string {
    return (
      `exploring ${file} stopped after ${result.states} states ` +
      `(${budgetRanOut(result, this.budgetMs / 1000)}); PB310 is not reported for it ` +
      '(kairoku-playbook check --explore or explore explores it further)'
    );
  }
}
