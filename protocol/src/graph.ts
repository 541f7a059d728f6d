/**
 * The language server's own requests a graph view sends (the VS Code extension's), and the step graph it
 * answers with: what the server draws from the compiler's IR (`@kairoku-playbook/lsp`,
 * service/features/graph.ts builds it) and what a view reads.
 */

import type { RunBounds } from './serve-api.js';

/** `{ textDocument: { uri } }` → `GraphAnswer`: the step graph of an open playbook. */
export const GRAPH_REQUEST = 'kairoku-playbook/graph';

/** `{ uris }` → the URIs among them that are playbooks as `check` discovers them (SPEC §2). */
export const PLAYBOOK_FILES_REQUEST = 'kairoku-playbook/playbookFiles';

/** How many problems an answer lists (errors first): a view shows them under the count. */
export const LISTED_PROBLEMS = 20;

export type GraphOutcome =
  | { name: string; transition: 'next' | 'fail' | 'end' | 'retry' }
  | { name: string; transition: 'loop'; target: number; max: number; exhausted: 'next' | 'fail' | 'end' };

export interface GraphStep {
  index: number;
  name: string;
  kind: 'agent' | 'check' | 'gate';
  /** the step's title as written (expressions as `${{ … }}`), or null */
  title: string | null;
  role: string | null;
  /** the `when:` condition as written, or null */
  when: string | null;
  /** the steps it needs, as indices, in the order written */
  needs: number[];
  outcomes: GraphOutcome[];
  /** the IR's layout: one row below the step's deepest need, and its place in that row */
  row: number;
  column: number;
  /** 1-based line and UTF-16 column of the step in its file */
  line: number;
  character: number;
}

/** A need: `from` must finish before `to` starts. */
export interface GraphEdge {
  from: number;
  to: number;
}

/** An outcome of `from` that goes back to `to`, at most `max` times, then `exhausted`. */
export interface GraphLoop {
  from: number;
  to: number;
  outcome: string;
  max: number;
  exhausted: 'next' | 'fail' | 'end';
}

export interface GraphAfterTask {
  name: string;
  kind: 'agent' | 'check';
  role: string | null;
  trigger: 'auto' | 'manual';
  on: ('completed' | 'failed')[];
  line: number;
  character: number;
}

export interface GraphProblem {
  /** 1-based */
  line: number;
  /** 1-based, UTF-16 code units */
  column: number;
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
}

/** A playbook that checks without errors: its graph. */
export interface PlaybookGraph {
  kind: 'graph';
  /** the file as diagnostics name it */
  file: string;
  id: string;
  title: string;
  warnings: number;
  /** one more than the deepest step's row (0 without steps) */
  rows: number;
  steps: GraphStep[];
  edges: GraphEdge[];
  loops: GraphLoop[];
  after: GraphAfterTask[];
  /**
   * the worst case of a run, once the server has explored this text (`check --explore`'s bounds, as the
   * start form shows them); absent before, or where the exploration is off
   */
  bounds?: RunBounds;
}

/** A playbook with errors: no graph, the counts and the first problems (errors first). */
export interface PlaybookProblems {
  kind: 'problems';
  file: string;
  errors: number;
  warnings: number;
  problems: GraphProblem[];
}

/** No graph to show: the document is not open in the server, or is not a playbook. */
export interface NoGraph {
  kind: 'none';
  message: string;
}

export type GraphAnswer = PlaybookGraph | PlaybookProblems | NoGraph;
