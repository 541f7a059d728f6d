/**
 * The latest diagnostics of every playbook as the client was (or will be) told them: a result id per
 * file that changes only when its diagnostics do, so pull requests can answer `unchanged`, and what each
 * validation changed, so the server pushes only that and asks a pulling client to refresh when
 * diagnostics changed other than by an edit of their own document. No connection here.
 */
import type {
  Diagnostic as LspDiagnostic,
  DocumentDiagnosticReport,
  WorkspaceDocumentDiagnosticReport,
} from 'vscode-languageserver/node';
import type { DiagnosticsOfWorkspace } from '../service/language-service.js';

/** The latest diagnostics of a playbook: an open document (its version), or one on disk (no version). */
interface Published {
  resultId: string;
  items: LspDiagnostic[];
  version: number | undefined;
}

/** What one validation changed. */
export interface Recorded {
  /** open documents whose diagnostics are to be pushed: changed, or their document was edited */
  changed: { key: string; items: LspDiagnostic[] }[];
  /** files whose diagnostics changed although they were not edited (another file's edit did it) */
  changedElsewhere: string[];
}

export class DiagnosticReports {
  /** every playbook of the last validation: the open documents and those discovered on disk */
  private readonly published = new Map<string, Published>();
  private nextResultId = 1;

  /**
   * Records a validation: `versionOf` gives an open document's version, `edited` the documents edited
   * since the one before. Files gone from the workspace (deleted, or closed and not on disk) are
   * forgotten, so a workspace pull reports them empty.
   */
  record(
    validation: DiagnosticsOfWorkspace,
    versionOf: (key: string) => number | undefined,
    edited: ReadonlySet<string>,
  ): Recorded {
    const validated = new Set<string>();
    /** Keeps a file's report, with a new result id only when its diagnostics changed; whether they did. */
    const keep = (key: string, items: LspDiagnostic[]): boolean => {
      validated.add(key);
      const previous = this.published.get(key);
      const same = previous !== undefined && JSON.stringify(previous.items) === JSON.stringify(items);
      this.published.set(key, {
        resultId: same ? previous.resultId : String(this.nextResultId++),
        items,
        version: versionOf(key),
      });
      return same;
    };
    const recorded: Recorded = { changed: [], changedElsewhere: [] };
    for (const [key, items] of validation.open) {
      const same = keep(key, items);
      const wasEdited = edited.has(key);
      if (same && !wasEdited) continue;
      if (!wasEdited) recorded.changedElsewhere.push(key);
      recorded.changed.push({ key, items });
    }
    // Playbooks on disk that are not open: kept for workspace pulls (never pushed: a client shows the
    // diagnostics of the documents it opens).
    for (const [key, items] of validation.onDisk) if (!keep(key, items)) recorded.changedElsewhere.push(key);
    for (const [key, report] of [...this.published]) {
      if (validated.has(key)) continue;
      this.published.delete(key);
      // An open document that is no longer a playbook (its top level became a list in a bare playbooks/
      // folder: SPEC §2) has its diagnostics cleared.
      if (report.version !== undefined && report.items.length) recorded.changed.push({ key, items: [] });
    }
    return recorded;
  }

  /** A closed document: its report is gone until the next validation finds it on disk. */
  forget(key: string): void {
    this.published.delete(key);
  }

  /** The version of an open document the last validation saw; undefined for a file not reported. */
  versionOf(key: string): number | undefined {
    return this.published.get(key)?.version;
  }

  has(key: string): boolean {
    return this.published.has(key);
  }

  /** `textDocument/diagnostic`'s answer from the latest report: `unchanged` when the client has it. */
  documentReport(key: string, previousResultId: string | undefined): DocumentDiagnosticReport {
    const report = this.published.get(key);
    if (!report) return { kind: 'full', items: [] };
    if (previousResultId === report.resultId) return { kind: 'unchanged', resultId: report.resultId };
    return { kind: 'full', resultId: report.resultId, items: report.items };
  }

  /**
   * `workspace/diagnostic`'s items: a report for every playbook of the workspace, `unchanged` where the
   * client already has the current result id, and an empty one for each document the client knows that
   * is no longer in the workspace. `uriOf` spells a key as the client does.
   */
  workspaceReports(
    previousResultIds: readonly { uri: string; value: string }[],
    keyOf: (uri: string) => string,
    uriOf: (key: string) => string | undefined,
  ): WorkspaceDocumentDiagnosticReport[] {
    const known = new Map<string, { uri: string; resultId: string }>();
    for (const { uri, value } of previousResultIds) known.set(keyOf(uri), { uri, resultId: value });
    const items: WorkspaceDocumentDiagnosticReport[] = [];
    for (const [key, report] of this.published) {
      const uri = uriOf(key) ?? known.get(key)?.uri ?? key;
      const version = report.version ?? null;
      items.push(
        known.get(key)?.resultId === report.resultId
          ? { kind: 'unchanged', uri, version, resultId: report.resultId }
          : { kind: 'full', uri, version, resultId: report.resultId, items: report.items },
      );
    }
    for (const [key, { uri }] of known)
      if (!this.published.has(key)) items.push({ kind: 'full', uri, version: null, items: [] });
    return items;
  }
}
