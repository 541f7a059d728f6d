import type { ErrorObject } from 'ajv';
import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node, YAMLMap } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import { replaceFix, shown, shownList, shownValue } from '../diagnostic.js';
import type { Diagnostic } from '../diagnostic.js';
import { nodeAtPointer, pairAtPointer, rangeOf } from '../yaml/read-yaml.js';
import { validate as validateAgainstSurfaceSchema } from '../generated/surface-validator.js';

interface SchemaNode {
  properties?: Record<string, unknown>;
  'x-code'?: string;
  'x-unknown-key-code'?: string;
  enum?: unknown[];
}

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

/** Checks the plain value of a playbook against the surface schema and turns ajv's errors into SPEC §4 codes. */
export function validateSurface(file: string, document: Document.Parsed, value: unknown): Diagnostic[] {
  const validate = validator();
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames');
  const diagnostics: Diagnostic[] = [];
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
    const diagnostic = toDiagnostic(file, document, error);
    if (diagnostic) diagnostics.push(diagnostic);
  }
  return diagnostics;
}

function toDiagnostic(file: string, document: Document.Parsed, error: ErrorObject): Diagnostic | undefined {
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  const where = describePointer(error.instancePath);
  const make = (code: string, range: { start: number; end: number }, message: string): Diagnostic => ({
    file,
    range,
    severity: 'error',
    code,
    message,
  });

  if (error.propertyName !== undefined) {
    const name = error.propertyName;
    const pair = pairAtPointer(document, error.instancePath, name);
    const kind = nameKind(error.instancePath);
    return make(
      'PB105',
      rangeOf(pair?.key as Node),
      `invalid ${kind} name "${shown(name)}": names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
    );
  }

  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const pair = pairAtPointer(document, error.instancePath, key);
      const range = rangeOf(pair?.key as Node);
      if (key === 'needs' && /^\/after\/[^/]+$/.test(error.instancePath)) {
        return make(
          'PB602',
          range,
          `after-task ${quoteLast(error.instancePath)} cannot have needs: after-tasks start when the run ends`,
        );
      }
      if (key === 'gate' && /^\/after\/[^/]+$/.test(error.instancePath)) {
        return make(
          'PB102',
          range,
          `after-task ${quoteLast(error.instancePath)} cannot be a gate: after-tasks are agent steps (prompt) or check steps (run)`,
        );
      }
      const allowed = Object.keys(parent.properties ?? {});
      const code = parent['x-unknown-key-code'] ?? 'PB102';
      if (key === MERGE_KEY)
        return make(
          code,
          range,
          `YAML merge keys ("<<") are not supported in playbooks; write the keys out${where ? ` in ${where}` : ''}, or share a whole value with an anchor and an alias (&name, *name)`,
        );
      const suggestion = closest(key, allowed);
      const noun = code === 'PB501' ? 'tool' : 'key';
      const base = `unknown ${noun} "${shown(key)}"${where ? ` in ${where}` : ''}`;
      const diagnostic = make(
        code,
        range,
        suggestion
          ? `${base}; did you mean "${shown(suggestion)}"?`
          : `${base}; expected one of ${list(allowed)}`,
      );
      if (suggestion && pair?.key && isScalar(pair.key)) {
        diagnostic.fix = replaceFix(range, suggestion);
      }
      return diagnostic;
    }
    case 'required': {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      return make(
        parent['x-code'] ?? 'PB103',
        requiredRange(document, error.instancePath),
        `${where || 'the playbook'} is missing the required key "${shown(missing)}"`,
      );
    }
  }

  const node = nodeAtPointer(document, error.instancePath);
  // A key without a value (`fix:` and nothing after it) has no characters: the diagnostic goes on the key.
  const valueRange = rangeOf(node);
  const range = valueRange.end > valueRange.start ? valueRange : requiredRange(document, error.instancePath);
  let code = VALUE_KEYWORDS.has(error.keyword) ? (parent['x-code'] ?? itemCode(error.instancePath)) : 'PB104';
  // A value of the wrong scalar type is PB104 (`retries: two`), not "out of range" or "invalid name";
  // durations, transitions and after-task triggers keep their own code whatever is wrong with them.
  if (error.keyword === 'type' && !TYPE_KEEPS_CODE.has(code)) code = 'PB104';
  const written =
    node && isScalar(node)
      ? typeof node.value === 'number' && node.source
        ? shown(node.source) // as written: 1e400 is not "null", 123456789012345678901 not 1.2345678901234568e+20
        : shownValue(node.value)
      : describeValue(node);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'const':
      if (code === 'PB106')
        return make(code, range, `unsupported version ${written}: this toolchain reads version 1`);
      return make(code, range, `${where} must be ${JSON.stringify(params.allowedValue)}, not ${written}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const value = node && isScalar(node) ? String(node.value) : '';
      const suggestion = value ? closest(value, allowed) : undefined;
      const what =
        code === 'PB605' ? `invalid transition ${written}` : `invalid value ${written} for ${where}`;
      const diagnostic = make(
        code,
        range,
        `${what}; expected one of ${list(allowed)}${suggestion ? ` (did you mean "${shown(suggestion)}"?)` : ''}`,
      );
      if (suggestion) diagnostic.fix = replaceFix(range, suggestion);
      return diagnostic;
    }
    case 'type': {
      const expected = String(params.type)
        .split(',')
        .map((type) => YAML_TYPE_NAMES[type] ?? type)
        .join(' or ');
      if (code === 'PB603')
        return make(
          code,
          range,
          `invalid duration ${written}: write a number with a unit, such as 90s, 30m, 1h30m or 2d`,
        );
      if (/^\/inputs\/[^/]+$/.test(error.instancePath) && node && isScalar(node))
        return make(
          code,
          range,
          `${where} must be a mapping such as { type: ${typeof node.value === 'string' && TYPE_LIKE.test(node.value) ? node.value : 'string'} }, not ${describeValue(node)}`,
        );
      if (code === 'PB605')
        return make(
          code,
          range,
          `invalid transition: expected next, fail, end, retry or a {loop: STEP} object, not ${describeValue(node)}`,
        );
      // `.inf`, `.nan`, `1e400`: numbers to YAML, but none of a playbook's numbers may be one. Past a
      // field's bounds infinity is out of its range, as any number past them is.
      if (node && isScalar(node) && typeof node.value === 'number' && !Number.isFinite(node.value)) {
        const bounds = parent as { minimum?: number; maximum?: number };
        if (!Number.isNaN(node.value) && (bounds.minimum !== undefined || bounds.maximum !== undefined))
          return make(
            parent['x-code'] ?? code,
            range,
            `${where} is ${written}, out of range: it must be ${rangeOfSchema(bounds)}`,
          );
        return make(
          code,
          range,
          `${where} must be ${article(expected)}, not ${written}, which YAML reads as ${Number.isNaN(node.value) ? 'not-a-number' : 'infinity'}`,
        );
      }
      // `prompt: {{ inputs.task }}` or `title: [draft] Fix it`: text that YAML reads as a collection.
      const flow = (isMap(node) || isSeq(node)) && (node as { flow?: boolean }).flow && expected === 'string';
      const hint = !flow
        ? ''
        : isMap(node)
          ? '; a value that starts with "{" is read as a YAML mapping: quote the text (a template is written ${{ … }})'
          : '; a value that starts with "[" is read as a YAML list: quote the text';
      return make(code, range, `${where} must be ${article(expected)}, not ${describeValue(node)}${hint}`);
    }
    case 'pattern':
      if (code === 'PB603')
        return make(
          code,
          range,
          `invalid duration ${written}: write a number with a unit, such as 90s, 30m, 1h30m or 2d`,
        );
      if (code === 'PB105')
        return make(
          code,
          range,
          `invalid ${where.replace(/^"(.*)"$/, '$1')} ${written}: names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
        );
      return make(code, range, `${where} ${written} does not match ${String(params.pattern)}`);
    case 'minimum':
    case 'maximum': {
      const limits = rangeOfSchema(error.parentSchema as { minimum?: number; maximum?: number });
      return make(code, range, `${where} is ${written}, out of range: it must be ${limits}`);
    }
    case 'minProperties':
      return make(code, range, `${where} must not be empty`);
    default:
      return make(code, range, `${where}: ${error.message ?? 'invalid value'}`);
  }
}

const MERGE_KEY = '<<';

/** A value that reads as a type (`task: string` for `task: { type: string }`). */
const TYPE_LIKE = /^(string|number|integer|boolean|list<.*>|enum\(.*\)|\{.*\})\??$/;

const TYPE_KEEPS_CODE = new Set(['PB602', 'PB603', 'PB605']);

/** JSON Schema's type names in the words of YAML. */
const YAML_TYPE_NAMES: Record<string, string> = { object: 'mapping', array: 'list' };

/** The code for an item of a list whose schema carries none: the list's own code (`on` of an after-task). */
function itemCode(pointer: string): string {
  return /^\/after\/[^/]+\/on\/\d+$/.test(pointer) ? 'PB602' : 'PB104';
}

function rangeOfSchema(schema: { minimum?: number; maximum?: number }): string {
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `from ${schema.minimum} to ${schema.maximum}`;
  if (schema.minimum !== undefined) return `at least ${schema.minimum}`;
  return `at most ${schema.maximum}`;
}

/** A missing key is reported on the key of the mapping that lacks it (the step's name, say). */
function requiredRange(document: Document.Parsed, pointer: string): { start: number; end: number } {
  if (!pointer) {
    const root = document.contents as Node | null;
    if (isMap(root) && (root as YAMLMap).items.length) {
      const first = (root as YAMLMap).items[0]!;
      return rangeOf(first.key as Node);
    }
    return { start: 0, end: 0 };
  }
  const cut = pointer.lastIndexOf('/');
  const key = decode(pointer.slice(cut + 1));
  const pair = pairAtPointer(document, pointer.slice(0, cut), key);
  if (pair?.key) return rangeOf(pair.key as Node);
  const node = nodeAtPointer(document, pointer);
  const range = rangeOf(node);
  return { start: range.start, end: range.start };
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

function quoteLast(pointer: string): string {
  return `"${shown(decode(pointer.slice(pointer.lastIndexOf('/') + 1)))}"`;
}

function describeValue(node: Node | undefined): string {
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

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function list(values: readonly string[]): string {
  return shownList(values, values.length);
}
