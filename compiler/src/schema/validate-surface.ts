import type { ErrorObject } from 'ajv';
import { isMap, isScalar } from 'yaml';
import type { Document, Node, Pair, YAMLMap } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import type { Diagnostic } from '../diagnostic.js';
import { findPair, nodeAtPointer, rangeOf } from '../yaml/read-yaml.js';
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
  for (const error of errors) {
    // One mistake, one diagnostic: a value that is wrong is reported once, by its first failing keyword.
    if (error.keyword !== 'additionalProperties' && error.keyword !== 'required' && !error.propertyName) {
      if ([...valueErrorAt].some((p) => error.instancePath === p || error.instancePath.startsWith(`${p}/`)))
        continue;
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
    const pair = findPairAt(document, error.instancePath, name);
    const kind = nameKind(error.instancePath);
    return make(
      'PB105',
      rangeOf(pair?.key as Node),
      `invalid ${kind} name "${name}": names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
    );
  }

  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const pair = findPairAt(document, error.instancePath, key);
      const range = rangeOf(pair?.key as Node);
      if (key === 'needs' && /^\/after\/[^/]+$/.test(error.instancePath)) {
        return make(
          'PB602',
          range,
          `after-task ${quoteLast(error.instancePath)} cannot have needs: after-tasks start when the run ends`,
        );
      }
      const allowed = Object.keys(parent.properties ?? {});
      const code = parent['x-unknown-key-code'] ?? 'PB102';
      const suggestion = closest(key, allowed);
      const noun = code === 'PB501' ? 'tool' : 'key';
      const base = `unknown ${noun} "${key}"${where ? ` in ${where}` : ''}`;
      const diagnostic = make(
        code,
        range,
        suggestion ? `${base}; did you mean "${suggestion}"?` : `${base}; expected one of ${list(allowed)}`,
      );
      if (suggestion && pair?.key && isScalar(pair.key)) {
        diagnostic.fix = { title: `Replace with "${suggestion}"`, edits: [{ range, newText: suggestion }] };
      }
      return diagnostic;
    }
    case 'required': {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      return make(
        parent['x-code'] ?? 'PB103',
        requiredRange(document, error.instancePath),
        `${where || 'the playbook'} is missing the required key "${missing}"`,
      );
    }
  }

  const node = nodeAtPointer(document, error.instancePath);
  const range = rangeOf(node);
  const code = VALUE_KEYWORDS.has(error.keyword) ? (parent['x-code'] ?? 'PB104') : 'PB104';
  const shown = node && isScalar(node) ? JSON.stringify(node.value) : describeValue(node);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'const':
      if (code === 'PB106')
        return make(code, range, `unsupported version ${shown}: this toolchain reads version 1`);
      return make(code, range, `${where} must be ${JSON.stringify(params.allowedValue)}, not ${shown}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      const value = node && isScalar(node) ? String(node.value) : '';
      const suggestion = value ? closest(value, allowed) : undefined;
      const what = code === 'PB605' ? `invalid transition ${shown}` : `invalid value ${shown} for ${where}`;
      const diagnostic = make(
        code,
        range,
        `${what}; expected one of ${list(allowed)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`,
      );
      if (suggestion)
        diagnostic.fix = { title: `Replace with "${suggestion}"`, edits: [{ range, newText: suggestion }] };
      return diagnostic;
    }
    case 'type': {
      const expected = String(params.type).replace(/,/g, ' or ');
      if (code === 'PB605')
        return make(
          code,
          range,
          `invalid transition: expected next, fail, end, retry or a {loop: STEP} object, not ${describeValue(node)}`,
        );
      return make(code, range, `${where} must be ${article(expected)}, not ${describeValue(node)}`);
    }
    case 'pattern':
      if (code === 'PB603')
        return make(
          code,
          range,
          `invalid duration ${shown}: write a number with a unit, such as 90s, 30m, 1h30m or 2d`,
        );
      if (code === 'PB105')
        return make(
          code,
          range,
          `invalid ${where} ${shown}: names start with a lowercase letter and use only a-z, 0-9, "_" and "-"`,
        );
      return make(code, range, `${where} ${shown} does not match ${String(params.pattern)}`);
    case 'minimum':
    case 'maximum': {
      const limits = rangeOfSchema(error.parentSchema as { minimum?: number; maximum?: number });
      return make(code, range, `${where} is ${shown}, out of range: it must be ${limits}`);
    }
    case 'minProperties':
      return make(code, range, `${where} must not be empty`);
    default:
      return make(code, range, `${where}: ${error.message ?? 'invalid value'}`);
  }
}

function rangeOfSchema(schema: { minimum?: number; maximum?: number }): string {
  if (schema.minimum !== undefined && schema.maximum !== undefined)
    return `from ${schema.minimum} to ${schema.maximum}`;
  if (schema.minimum !== undefined) return `at least ${schema.minimum}`;
  return `at most ${schema.maximum}`;
}

function findPairAt(document: Document.Parsed, pointer: string, key: string): Pair | undefined {
  const parent = nodeAtPointer(document, pointer);
  return isMap(parent) ? findPair(parent as YAMLMap, key) : undefined;
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
  const key = pointer
    .slice(cut + 1)
    .replace(/~1/g, '/')
    .replace(/~0/g, '~');
  const pair = findPairAt(document, pointer.slice(0, cut), key);
  if (pair?.key) return rangeOf(pair.key as Node);
  const node = nodeAtPointer(document, pointer);
  const range = rangeOf(node);
  return { start: range.start, end: range.start };
}

function decode(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Names a place in the playbook for a message: `step "plan"`, `outcome "fail" of step "qa"`, … */
export function describePointer(pointer: string): string {
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
  if (!owner) return name === undefined ? `"${top}"` : `"${top}.${[name, ...rest].join('.')}"`;
  if (name === undefined) return `"${top}"`;
  const base = `${owner} "${name}"`;
  if (rest.length === 0) return base;
  if (rest[0] === 'outcomes' && rest[1] !== undefined) {
    return `${rest.length > 2 ? `"${rest.slice(2).join('.')}" of ` : ''}outcome "${rest[1]}" of ${base}`;
  }
  if (rest[0] === 'gate' && rest[1] === 'choices' && rest[2] !== undefined) {
    return `${rest.length > 3 ? `"${rest.slice(3).join('.')}" of ` : ''}choice "${rest[2]}" of ${base}`;
  }
  return `"${rest.join('.')}" of ${base}`;
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
  return `"${decode(pointer.slice(pointer.lastIndexOf('/') + 1))}"`;
}

function describeValue(node: Node | undefined): string {
  if (!node) return 'nothing';
  if (isMap(node)) return 'a mapping';
  if (isScalar(node)) {
    const v = node.value;
    if (v === null) return 'null';
    if (typeof v === 'string') return `the text ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
    return `${typeof v} ${String(v)}`;
  }
  return 'a list';
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

function list(values: readonly string[]): string {
  return values.map((v) => `"${v}"`).join(', ');
}
