import type { ErrorObject } from 'ajv';
import { closest } from '@kairoku-playbook/grammar';
import schema from '@kairoku-playbook/grammar/schema/playbook-test.schema.json' with { type: 'json' };
import { validate as validateAgainstTestSchema } from '../generated/test-validator.js';

/**
 * The one set of rules for the shape of a scenario or a playbook test: which keys it may have and what
 * each must be (reports as one mapping or a list, decisions, `expect`'s status, attempts as a count or a
 * list, …), or what is wrong, as values. The rules are the JSON Schema
 * (grammar/schema/playbook-test.schema.json, precompiled to generated/test-validator.ts); the compiler's
 * PB800 (with ranges and fixes) and the runtime's scenario and `expect:` readers (`run --scenario`,
 * `serve`, `mcp`, `kairoku-playbook test`, with paths like `steps.qa[0]`) both ask this and only word
 * the answer; neither keeps rules of its own. Pure: no I/O.
 */

/**
 * What the value is: a playbook test (`NAME.test.yml`), or a scenario for `run --scenario`, which is a
 * test without its `name` and `expect`.
 */
export type ShapeFormat = 'test' | 'scenario';

/** Where a problem is: the JSON pointer of the value (`/steps/qa/0`) and its segments. */
export interface ShapePlace {
  pointer: string;
  path: readonly string[];
}

/** What is wrong with the shape at a place; `value` is what is written there. */
export type ShapeProblem = ShapePlace &
  (
    | { problem: 'unknown-key'; key: string; allowed: string[]; suggestion: string | undefined }
    /** a key of a mapping whose keys have a form (a loop counter's `STEP.OUTCOME`) that is not of it */
    | { problem: 'bad-key'; key: string; form: string }
    | { problem: 'missing-key'; key: string }
    | { problem: 'wrong-type'; types: string[]; value: unknown }
    | { problem: 'not-one-of'; allowed: unknown[]; value: unknown }
    | { problem: 'below-minimum'; minimum: number; value: unknown }
    | { problem: 'invalid'; message: string; value: unknown }
  );

interface StandaloneValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

interface SchemaNode {
  description?: string;
  properties?: Record<string, unknown>;
  enum?: unknown[];
  type?: string | string[];
  minimum?: number;
}

/** The keys only a playbook test has: a scenario for `run --scenario` has neither. */
const TEST_ONLY_KEYS = ['name', 'expect'];

/**
 * What is wrong with the shape of a scenario or playbook test (parsed YAML), in the order of the schema's
 * checks. Nothing (undefined: a file without a document) is an empty test; null is not a mapping. One
 * mistake, one problem: a value is reported once, by its first failing rule, and not again for what lies
 * inside it; `{ choise: approve }` is an unknown key with a did-you-mean, not also a missing "choice".
 */
export function shapeProblems(value: unknown, format: ShapeFormat = 'test'): ShapeProblem[] {
  if (value === undefined) return [];
  const validate = validateAgainstTestSchema as StandaloneValidator;
  const errors = validate(value) ? [] : (validate.errors ?? []);
  const problems: ShapeProblem[] = [];
  const reportedAt: string[] = [];
  const suggested = suggestedKeys(errors);
  for (const error of errors) {
    const pointer = error.instancePath;
    if (reportedAt.some((p) => pointer === p || pointer.startsWith(`${p}/`))) continue;
    const problem = problemOf(error, suggested);
    if (!problem) continue;
    problems.push(problem);
    if (problem.problem === 'unknown-key' || problem.problem === 'bad-key')
      reportedAt.push(`${pointer}/${escapePointer(problem.key)}`);
    else if (problem.problem !== 'missing-key') reportedAt.push(pointer);
  }
  return format === 'scenario' ? asScenario(value, problems) : problems;
}

function problemOf(error: ErrorObject, suggested: Set<string>): ShapeProblem | undefined {
  const pointer = error.instancePath;
  const place = { pointer, path: segmentsOf(pointer) };
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  // (a key of the wrong form fails its pattern, then `propertyNames` again: one problem)
  if (error.keyword === 'propertyNames') return undefined;
  if (error.propertyName !== undefined)
    return { ...place, problem: 'bad-key', key: error.propertyName, form: parent.description ?? 'valid' };
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const allowed = Object.keys(parent.properties ?? {});
      return { ...place, problem: 'unknown-key', key, allowed, suggestion: closest(key, allowed) };
    }
    case 'required': {
      const key = String((error.params as { missingProperty: string }).missingProperty);
      return suggested.has(`${pointer}\u0000${key}`) ? undefined : { ...place, problem: 'missing-key', key };
    }
    case 'type': {
      const types = Array.isArray(parent.type) ? parent.type : parent.type ? [parent.type] : [];
      return { ...place, problem: 'wrong-type', types, value: error.data };
    }
    case 'enum':
      return { ...place, problem: 'not-one-of', allowed: parent.enum ?? [], value: error.data };
    case 'minimum':
      return { ...place, problem: 'below-minimum', minimum: parent.minimum ?? 0, value: error.data };
    default:
      return { ...place, problem: 'invalid', message: error.message ?? 'valid', value: error.data };
  }
}

/** The keys an unknown key's did-you-mean names, by the pointer of their mapping. */
function suggestedKeys(errors: readonly ErrorObject[]): Set<string> {
  const suggested = new Set<string>();
  for (const error of errors)
    if (error.keyword === 'additionalProperties') {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const suggestion = closest(
        key,
        Object.keys(((error.parentSchema ?? {}) as SchemaNode).properties ?? {}),
      );
      if (suggestion) suggested.add(`${error.instancePath}\u0000${suggestion}`);
    }
  return suggested;
}

/**
 * A scenario's problems from a test's: `name` and `expect` are unknown keys there, what lies inside them
 * is not looked at, and an unknown key's did-you-mean and list name a scenario's keys.
 */
function asScenario(value: unknown, problems: ShapeProblem[]): ShapeProblem[] {
  const isTestOnly = (p: ShapeProblem) => TEST_ONLY_KEYS.includes(p.path[0] ?? '');
  const kept = problems.filter((p) => !isTestOnly(p)).map(forScenario);
  if (typeof value !== 'object' || Array.isArray(value)) return kept;
  const added: ShapeProblem[] = Object.keys(value as object)
    .filter((key) => TEST_ONLY_KEYS.includes(key))
    .map((key) =>
      forScenario({ pointer: '', path: [], problem: 'unknown-key', key, allowed: [], suggestion: undefined }),
    );
  return [...added, ...kept];
}

function forScenario(problem: ShapeProblem): ShapeProblem {
  if (problem.problem !== 'unknown-key' || problem.pointer !== '') return problem;
  const allowed = scenarioKeys();
  return { ...problem, allowed, suggestion: closest(problem.key, allowed) };
}

/** The keys a scenario may have: a test's, but `name` and `expect`. */
function scenarioKeys(): string[] {
  return testKeys().filter((key) => !TEST_ONLY_KEYS.includes(key));
}

/** The keys a playbook test may have, in the schema's order. */
function testKeys(): string[] {
  return Object.keys(schema.properties);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function segmentsOf(pointer: string): string[] {
  return pointer
    .split('/')
    .slice(1)
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `steps`, `qa`, `0`, `outcome` → `steps.qa[0].outcome`. */
export function describeShapePath(path: readonly string[]): string {
  let text = '';
  for (const segment of path) text += /^\d+$/.test(segment) ? `[${segment}]` : text ? `.${segment}` : segment;
  return text;
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

/**
 * What a value with a `wrong-type`, `not-one-of`, `below-minimum` or `invalid` problem (a key with a
 * `bad-key` one) must be, in words.
 */
export function expectedWords(problem: ShapeProblem): string {
  switch (problem.problem) {
    case 'bad-key':
      return problem.form;
    case 'wrong-type':
      return problem.types.map((t) => TYPE_WORDS[t] ?? t).join(' or ');
    case 'not-one-of':
      return `one of ${problem.allowed.join(', ')}`;
    case 'below-minimum':
      return `at least ${String(problem.minimum)}`;
    case 'invalid':
      return problem.message;
    default:
      return 'valid';
  }
}
