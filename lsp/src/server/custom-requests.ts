/**
 * The server's own requests, beside LSP's. Their params are checked like LSP's (protocol/params.ts).
 */

/** Heap and counts, for health checks (no params): the tests (and curious users) read it. */
export const STATS_REQUEST = 'kairoku-playbook/stats';

export interface ServerStats {
  heapUsed: number;
  rss: number;
  open: number;
  disk: number;
  analyses: number;
  /** a walk of the workspace folders is still going on */
  discovering: boolean;
  validations: number;
  errors: number;
}

/**
 * The step graph of an open playbook, from the same analysis as its diagnostics (`GraphParams` →
 * `GraphAnswer`): a graph view asks this instead of compiling the playbook itself.
 */
export { GRAPH_REQUEST } from '@kairoku-playbook/protocol';

export interface GraphParams {
  textDocument: { uri: string };
}

/**
 * Which of the given files are playbooks as `check` discovers them (SPEC §2): `PlaybookFilesParams` →
 * the URIs that are, in the order given. A client that lists files itself (VS Code's file search) keeps
 * the playbooks this way, without a copy of the rule.
 */
export { PLAYBOOK_FILES_REQUEST } from '@kairoku-playbook/protocol';

export interface PlaybookFilesParams {
  uris: string[];
}
