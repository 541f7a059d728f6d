import type { ErrorObject } from 'ajv';
import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import { CODES } from '../codes.js';
import type { Code } from '../codes.js';
import { replaceFix, shown, shownList, shownValue } from '../diagnostic.js';
import type { OffsetRange, QuickFix } from '../diagnostic.js';
import { nodeAtPointer, pairAtPointer, rangeOf, requiredRange } from '../yaml/read-yaml.js';
import { validate as validateAgainstSurfaceSchema } from '../generated/surface-validator.js';

interface SchemaNode {
  properties?: Record<string, unknown>;
  'x-code'?: string;
  'x-unknown-key-code'?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

/** The codes the surface schema's mistakes are reported with (its `x-code` annotations, and the defaults). */
export const SURFACE_CODES = [
  'PB102',
  'PB103',
  'PB104',
  'PB105',
  'PB106',
  'PB302',
  'PB501',
  'PB602',
  'PB603',
  'PB604',
  'PB605',
] as const satisfies readonly Code[];

export type SurfaceCode = (typeof SURFACE_CODES)[number];

/**
 * A place where the playbook does not fit the surface schema, with the code it is reported with (from the
 * schema's `x-code` annotations) and what a message needs. The checks that own each code turn problems into
 * diagnostics (checks/index.ts, `surfaceDiagnostics`).
 */
export type SchemaProblem =
  | {
      /** a name that is not valid (a step's, an input's, …) */
      kind: 'name';
      code: SurfaceCode;
      file: string;
      range: OffsetRange;
      pointer: string;
      name: string;
    }
  | {
      /** a key the schema does not allow there */
      kind: 'unknown-key';
      code: SurfaceCode;
      file: string;
      range: OffsetRange;
      pointer: string;
      /** the place named for a message: `step "plan"`, `"limits"`, … ('' for the playbook) */
      where: string;
      key: string;
      allowed: readonly string[];
      /** the key is a plain scalar (a did-you-mean can replace it) */
      keyIsScalar: boolean;
    }
  | {
      kind: 'missing-key';
      code: SurfaceCode;
      file: string;
      range: OffsetRange;
      pointer: string;
      where: string;
      missing: string;
    }
  | {
      /** a value of the wrong type, out of its range, not one of its values, … (`keyword`: ajv's) */
      kind: 'value';
      code: SurfaceCode;
      file: string;
      range: OffsetRange;
      pointer: string;
      where: string;
      keyword: string;
      node: Node | undefined;
      /** the value as a message shows it */
      written: string;
      params: Record<string, unknown>;
      schema: SchemaNode;
      /** ajv's own words, for a keyword without a message of ours */
      ajvMessage: string | undefined;
    };

/** The surface schema, precompiled at build time (compiler/scripts/generate-validators.mjs). */
interface StandaloneValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}
const validator = (): StandaloneValidator => validateAgainstSurfaceSchema as StandaloneValidator;

const VALUE_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'pattern',
  'minimum',
  'maximum',
  'minProperties',
  'minItems',
  'required',
]);

/**
 * Checks the plain value of a playbook against the surface schema: the places where it does not fit, each
 * with its SPEC §4 code. One mistake, one problem.
 */
export function validateSurface(file: string, document: Document.Parsed, value: unknown): SchemaProblem[] {
  const validate = validator();
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames');
  const problems: SchemaProblem[] = [];
  const valueErrorAt = new Set<string>();
  // `titel: …` is one mistake: its PB102 says "did you mean "title"?", so "title" is not also reported missing.
  const suggestedAt = new Set<string>();
  const anyRequired = errors.some((e) => e.keyword === 'required');
  for (const error of anyRequired ? errors : []) {
    if (error.keyword !== 'additionalProperties') continue;
    const key = String((error.params as { additionalProperty: string }).additionalProperty);
    const allowed = Object.keys(((error.parentSchema ?? {}) as SchemaNode).properties ?? {});
    const suggestion = closest(key, allowed);
    if (suggestion) suggestedAt.add(`${error.instancePath}\u0000${suggestion}`);
    // A YAML merge key (`<<: *defaults`) may have been meant to bring any key: its PB102 says it all.
    if (key === MERGE_KEY) for (const name of allowed) suggestedAt.add(`${error.instancePath}\u0000${name}`);
  }
  for (const error of errors) {
    if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      if (suggestedAt.has(`${error.instancePath}\u0000${missing}`)) continue;
    }
    // One mistake, one diagnostic: a value that is wrong is reported once, by its first failing keyword.
    if (error.keyword !== 'additionalProperties' && error.keyword !== 'required' && !error.propertyName) {
      // (the path and each of its prefixes looked up: linear in the errors, not quadratic)
      const path = error.instancePath;
      let covered = valueErrorAt.has(path) || (path !== '' && valueErrorAt.has(''));
      for (let cut = path.indexOf('/', 1); !covered && cut > 0; cut = path.indexOf('/', cut + 1))
        covered = valueErrorAt.has(path.slice(0, cut));
      if (covered) continue;
      valueErrorAt.add(error.instancePath);
    }
    problems.push(toProblem(file, document, error));
  }
  return problems;
}

/** A code the schema names in an annotation, or the fallback when it names none (or one that is not ours). */
function annotated(code: string | undefined, fallback: SurfaceCode): SurfaceCode {
  return code !== undefined && (SURFACE_CODES as readonly string[]).includes(code) && code in CODES
    ? (code as SurfaceCode)
    : fallback;
}

function toProblem(file: string, document: Document.Parsed, error: ErrorObject): SchemaProblem {
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  const pointer = error.instancePath;
  const where = describePointer(pointer);

  if (error.propertyName !== undefined) {
    const pair = pairAtPointer(document, pointer, error.propertyName);
    return {
      kind: 'name',
      code: 'PB105',
      file,
      range: rangeOf(pair?.key as Node),
      pointer,
      name: error.propertyName,
    };
  }

  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const pair = pairAtPointer(document, pointer, key);
      const afterTask = /^\/after\/[^/]+$/.test(pointer);
      const code: SurfaceCode =
        key === 'needs' && afterTask
          ? 'PB602'
          : key === 'gate' && afterTask
            ? 'PB102'
            : annotated(parent['x-unknown-key-code'], 'PB102');
      return {
        kind: 'unknown-key',
        code,
        file,
        range: rangeOf(pair?.key as Node),
        pointer,
        where,
        key,
        allowed: Object.keys(parent.properties ?? {}),
        keyIsScalar: pair?.key !== undefined && pair.key !== null && isScalar(pair.key),
      };
    }
    case 'required': {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      return {
        kind: 'missing-key',
        code: annotated(parent['x-code'], 'PB103'),
        file,
        range: requiredRange(document, pointer),
        pointer,
        where,
        missing,
      };
    }
  }

  return valueProblem(file, document, error, where);
}

/** A value that does not fit: its code (the schema's own, or PB104 for a wrong type) and how it was written. */
function valueProblem(
  file: string,
  document: Document.Parsed,
  error: ErrorObject,
  where: string,
): SchemaProblem {
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  const pointer = error.instancePath;
  const node = nodeAtPointer(document, pointer);
  // A key without a value (`fix:` and nothing after it) has no characters: the diagnostic goes on the key.
  const valueRange = rangeOf(node);
  const range = valueRange.end > valueRange.start ? valueRange : requiredRange(document, pointer);
  let code: SurfaceCode = VALUE_KEYWORDS.has(error.keyword)
    ? annotated(parent['x-code'], itemCode(pointer))
    : 'PB104';
  // A value of the wrong scalar type is PB104 (`retries: two`), not "out of range" or "invalid name";
  // durations, transitions and after-task triggers keep their own code whatever is wrong with them.
  if (error.keyword === 'type' && !TYPE_KEEPS_CODE.has(code)) code = 'PB104';
  // `.inf` past a field's bounds is out of its range, as any number past them is.
  if (error.keyword === 'type' && isOutOfBounds(node, parent)) code = annotated(parent['x-code'], code);
  const written =
    node && isScalar(node)
      ? typeof node.value === 'number' && node.source
        ? shown(node.source) // as written: 1e400 is not "null", 123456789012345678901 not 1.2345678901234568e+20
        : shownValue(node.value)
      : describeValue(node);
  return {
    kind: 'value',
    code,
    file,
    range,
    pointer,
    where,
    keyword: error.keyword,
    node,
    written,
    params: error.params as Record<string, unknown>,
    schema: parent,
    ajvMessage: error.message,
  };
}

/** An infinite number (`.inf`, `1e400`) where the schema gives bounds: out of range rather than not a number. */
function isOutOfBounds(node: Node | undefined, schema: SchemaNode): boolean {
  return (
    node !== undefined &&
    isScalar(node) &&
    typeof node.value === 'number' &&
    !Number.isFinite(node.value) &&
    !Number.isNaN(node.value) &&
    (schema.minimum !== undefined || schema.maximum !== undefined)
  );
}

/** A problem's message and fix as most codes word it; the checks that own a code word its special cases. */
export function schemaMessage(problem: SchemaProblem): { message: string; fix?: QuickFix | undefined } {
  switch (problem.kind) {
    case 'name':
      return {
        message: `invalid ${nameKind(problem.pointer)} name "${shown(problem.name)}": names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
      };
    case 'unknown-key':
      return unknownKeyMessage(problem, 'key');
    case 'missing-key':
      return {
        message: `${problem.where || 'the playbook'} is missing the required key "${shown(problem.missing)}"`,
      };
    case 'value':
      return valueMessage(problem);
  }
}

/** An unknown key (or a tool, …: `noun`), with a did-you-mean or the keys allowed; a YAML merge key said as such. */
export function unknownKeyMessage(
  problem: Extract<SchemaProblem, { kind: 'unknown-key' }>,
  noun: string,
): { message: string; fix?: QuickFix | undefined } {
  const { key, where, allowed, range } = problem;
  if (key === MERGE_KEY)
    return {
      message: `YAML merge keys ("<<") are not supported in playbooks; write the keys out${where ? ` in ${where}` : ''}, or share a whole value with an anchor and an alias (&name, *name)`,
    };
  const suggestion = closest(key, allowed);
  const base = `unknown ${noun} "${shown(key)}"${where ? ` in ${where}` : ''}`;
  return {
    message: suggestion
      ? `${base}; did you mean "${shown(suggestion)}"?`
      : `${base}; expected one of ${list(allowed)}`,
    fix: suggestion && problem.keyIsScalar ? replaceFix(range, suggestion) : undefined,
  };
}

/** A value that is not one of the schema's values: `what` names it (`invalid value "x" for "on"`). */
export function enumMessage(
  problem: Extract<SchemaProblem, { kind: 'value' }>,
  what: string,
): { message: string; fix?: QuickFix | undefined } {
  const allowed = (problem.params.allowedValues as unknown[]).map(String);
  const node = problem.node;
  const value = node && isScalar(node) ? String(node.value) : '';
  const suggestion = value ? closest(value, allowed) : undefined;
  return {
    message: `${what}; expected one of ${list(allowed)}${suggestion ? ` (did you mean "${shown(suggestion)}"?)` : ''}`,
    fix: suggestion ? replaceFix(problem.range, suggestion) : undefined,
  };
}

function valueMessage(problem: Extract<SchemaProblem, { kind: 'value' }>): {
  message: string;
  fix?: QuickFix | undefined;
} {
  const { written, node, params } = problem;
  // The top level has no name of its own: it is the playbook.
  const where = problem.where || 'the playbook';
  switch (problem.keyword) {
    case 'const':
      return { message: `${where} must be ${JSON.stringify(params.allowedValue)}, not ${written}` };
    case 'enum':
      return enumMessage(problem, `invalid value ${written} for ${where}`);
    case 'type': {
      const expected = String(params.type)
        .split(',')
        .map((type) => YAML_TYPE_NAMES[type] ?? type)
        .join(' or ');
      // `.inf`, `.nan`, `1e400`: numbers to YAML, but none of a playbook's numbers may be one. Past a
      // field's bounds infinity is out of its range, as any number past them is.
      if (node && isScalar(node) && typeof node.value === 'number' && !Number.isFinite(node.value)) {
        if (isOutOfBounds(node, problem.schema))
          return {
            message: `${where} is ${written}, out of range: it must be ${rangeOfSchema(problem.schema)}`,
          };
        return {
          message: `${where} must be ${article(expected)}, not ${written}, which YAML reads as ${Number.isNaN(node.value) ? 'not-a-number' : 'infinity'}`,
        };
      }
      // `prompt: {{ inputs.task }}` or `title: [draft] Fix it`: text that YAML reads as a collection.
      const flow = (isMap(node) || isSeq(node)) && (node as { flow?: boolean }).flow && expected === 'string';
      const hint = !flow
        ? ''
        : isMap(node)
          ? '; a value that starts with "{" is read as a YAML mapping: quote the text (a template is written ${{ … }})'
          : '; a value that starts with "[" is read as a YAML list: quote the text';
      return { message: `${where} must be ${article(expected)}, not ${describeValue(node)}${hint}` };
    }
    case 'pattern':
      return { message: `${where} ${written} does not match ${String(params.pattern)}` };
    case 'minimum':
    case 'maximum':
      return { message: `${where} is ${written}, out of range: it must be ${rangeOfSchema(problem.schema)}` };
    case 'minProperties':
      return { message: `${where} must not be empty` };
    default:
      return { message: `${where}: ${problem.ajvMessage ?? 'invalid value'}` };
  }
}

/** How a value of the wrong kind is described in a message: `a mapping`, `the text "…"`, `number 3`. */
export function describeValue(node: Node | undefined): string {
  if (!node) return 'an empty value';
  if (isMap(node)) return 'a mapping';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${shown(v, 41)}` : v)}`;
    if (typeof v === 'number') return `number ${shown(node.source || String(v))}`;
    // `!!binary …` and other tags make values that are not text, numbers or booleans
    if (typeof v === 'object')
      return `a value tagged ${shown((node.tag ?? '').replace('tag:yaml.org,2002:', '!!'))}`;
    return `${typeof v} ${String(v)}`;
  }
  return 'a list';
}

/** The name of the entry a pointer ends at, quoted (`"plan"` for /after/plan). */
export function quoteLast(pointer: string): string {
  return `"${shown(decode(pointer.slice(pointer.lastIndexOf('/') + 1)))}"`;
}

const MERGE_KEY = '<<';

const TYPE_KEEPS_CODE = new Set<SurfaceCode>(['PB602', 'PB603', 'PB605']);

/** JSON Schema's type names in the words of YAML. */
const YAML_TYPE_NAMES: Record<string, string> = { object: 'mapping', array: 'list' };

/** The code for an item of a list whose schema carries none: the list's own code (`on` of an after-task). */
function itemCode(pointer: string): SurfaceCode {
  return /^\/after\/[^/]+\/on\/\d+$/.test(pointer) ? 'PB602' : 'PB104';
}

function rangeOfSchema(schema: SchemaNode): string {
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `from ${schema.minimum} to ${schema.maximum}`;
  if (schema.minimum !== undefined) return `at least ${schema.minimum}`;
  return `at most ${schema.maximum}`;
}

function decode(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Names a place in the playbook for a message: `step "plan"`, `outcome "fail" of step "qa"`, … */
function describePointer(pointer: string): string {
  const s = pointer.split('/').slice(1).map(decode);
  const [top, name, ...rest] = s;
  if (top === undefined) return '';
  const owners: Record<string, string> = {
    steps: 'step',
    after: 'after-task',
    inputs: 'input',
    roles: 'role',
    outputs: 'output',
  };
  const owner = owners[top];
  if (!owner)
    return name === undefined ? `"${shown(top)}"` : `"${shown(`${top}.${[name, ...rest].join('.')}`)}"`;
  if (name === undefined) return `"${shown(top)}"`;
  const base = `${owner} "${shown(name)}"`;
  if (rest.length === 0) return base;
  if (rest[0] === 'outcomes' && rest[1] !== undefined) {
    return `${rest.length > 2 ? `"${shown(rest.slice(2).join('.'))}" of ` : ''}outcome "${shown(rest[1])}" of ${base}`;
  }
  if (rest[0] === 'gate' && rest[1] === 'choices' && rest[2] !== undefined) {
    return `${rest.length > 3 ? `"${shown(rest.slice(3).join('.'))}" of ` : ''}choice "${shown(rest[2])}" of ${base}`;
  }
  return `"${shown(rest.join('.'))}" of ${base}`;
}

function nameKind(pointer: string): string {
  const last = decode(pointer.slice(pointer.lastIndexOf('/') + 1));
  const kinds: Record<string, string> = {
    steps: 'step',
    inputs: 'input',
    roles: 'role',
    outputs: 'output',
    outcomes: 'outcome',
    choices: 'choice',
    after: 'after-task',
  };
  return kinds[last] ?? 'name';
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function list(values: readonly string[]): string {
  return shownList(values, values.length);
}
