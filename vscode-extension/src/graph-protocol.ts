/**
 * The language server's own requests the extension sends, and the shape of their answers, as the server
 * declares them (`@kairoku-playbook/lsp`: server/custom-requests.ts, service/features/graph.ts; a test
 * keeps the two equal). The extension imports nothing of the playbook packages: what it knows of a
 * playbook comes from the server it runs, so the graph comes from the compiler the diagnostics come from.
 * An answer is checked before it is drawn: the server may be another build (`kairokuPlaybook.server.path`).
 */

/** `{ textDocument: { uri } }` → `GraphAnswer`: the step graph of an open playbook. */
export const GRAPH_REQUEST = 'kairoku-playbook/graph';

/** `{ uris }` → the URIs among them that are playbooks as `check` discovers them (SPEC §2). */
export const PLAYBOOK_FILES_REQUEST = 'kairoku-playbook/playbookFiles';

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
  needs: number[];
  outcomes: GraphOutcome[];
  /** one below the step's deepest need, and its place in that row */
  row: number;
  column: number;
  /** 1-based line and UTF-16 column of the step in its file */
  line: number;
  character: number;
}

export interface GraphEdge {
  from: number;
  to: number;
}

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

export interface PlaybookGraph {
  kind: 'graph';
  file: string;
  id: string;
  title: string;
  warnings: number;
  rows: number;
  steps: GraphStep[];
  edges: GraphEdge[];
  loops: GraphLoop[];
  after: GraphAfterTask[];
}

export interface PlaybookProblems {
  kind: 'problems';
  file: string;
  errors: number;
  warnings: number;
  problems: GraphProblem[];
}

export interface NoGraph {
  kind: 'none';
  message: string;
}

export type GraphAnswer = PlaybookGraph | PlaybookProblems | NoGraph;

// ---- checking an answer ---------------------------------------------------------------------------

type Check = (value: unknown) => boolean;

const string: Check = (v) => typeof v === 'string';
const count: Check = (v) => Number.isInteger(v) && (v as number) >= 0;
const nullable =
  (check: Check): Check =>
  (v) =>
    v === null || check(v);
const oneOf =
  (...allowed: string[]): Check =>
  (v) =>
    allowed.includes(v as string);
const array =
  (check: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every(check);
function object(fields: Record<string, Check>): Check {
  return (v) =>
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.entries(fields).every(([name, check]) => check((v as Record<string, unknown>)[name]));
}

const exhausted = oneOf('next', 'fail', 'end');
const outcome: Check = (v) =>
  object({ name: string, transition: oneOf('next', 'fail', 'end', 'retry') })(v) ||
  object({ name: string, transition: oneOf('loop'), target: count, max: count, exhausted })(v);
const step = object({
  index: count,
  name: string,
  kind: oneOf('agent', 'check', 'gate'),
  title: nullable(string),
  role: nullable(string),
  when: nullable(string),
  needs: array(count),
  outcomes: array(outcome),
  row: count,
  column: count,
  line: count,
  character: count,
});
const graph = object({
  kind: oneOf('graph'),
  file: string,
  id: string,
  title: string,
  warnings: count,
  rows: count,
  steps: array(step),
  edges: array(object({ from: count, to: count })),
  loops: array(object({ from: count, to: count, outcome: string, max: count, exhausted })),
  after: array(
    object({
      name: string,
      kind: oneOf('agent', 'check'),
      role: nullable(string),
      trigger: oneOf('auto', 'manual'),
      on: array(oneOf('completed', 'failed')),
      line: count,
      character: count,
    }),
  ),
});
const problems = object({
  kind: oneOf('problems'),
  file: string,
  errors: count,
  warnings: count,
  problems: array(
    object({
      line: count,
      column: count,
      severity: oneOf('error', 'warning', 'info'),
      code: string,
      message: string,
    }),
  ),
});
const none = object({ kind: oneOf('none'), message: string });

/**
 * Whether a server's answer has the shape of a `GraphAnswer` (numbers whole and not negative: they
 * place nodes in the page's style sheet), and each step sits at its own index.
 */
export function isGraphAnswer(value: unknown): value is GraphAnswer {
  if (graph(value)) return (value as PlaybookGraph).steps.every((s, i) => s.index === i);
  return problems(value) || none(value);
}
