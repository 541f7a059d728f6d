/**
 * The check of the language server's graph answer before it is drawn: the server may be another build
 * (`kairokuPlaybook.server.path`). The answer's type and the request names are the protocol's
 * (`@kairoku-playbook/protocol`), which the server declares them with too.
 */
import type { GraphAnswer, PlaybookGraph } from '@kairoku-playbook/protocol';

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
const bounds = object({
  explored: (v) => typeof v === 'boolean',
  agentTurns: count,
  gateDecisions: count,
  chainTurns: count,
  longestMs: (v) => typeof v === 'number' && v >= 0,
});

/**
 * Whether a server's answer has the shape of a `GraphAnswer` (numbers whole and not negative: they
 * place nodes in the page's style sheet), and each step sits at its own index.
 */
export function isGraphAnswer(value: unknown): value is GraphAnswer {
  if (graph(value)) {
    const answer = value as PlaybookGraph;
    return (
      answer.steps.every((s, i) => s.index === i) && (answer.bounds === undefined || bounds(answer.bounds))
    );
  }
  return problems(value) || none(value);
}
