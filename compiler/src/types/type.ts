import type { TypeExpr } from '@kairoku-playbook/grammar';
import { MAX_SHOWN, shown } from '../diagnostic.js';

/** The static types of the playbook language (SPEC §3.5). `any` stands where a type is unknown after an error. */
export type Type =
  | { kind: 'string' }
  | { kind: 'number' }
  | { kind: 'integer' }
  | { kind: 'boolean' }
  | { kind: 'null' }
  | { kind: 'any' }
  | { kind: 'list'; element: Type }
  /** `origin` names where an enum of outcomes or choices comes from, for PB206 messages */
  | { kind: 'enum'; members: readonly string[]; origin?: string }
  /** `open`: any property may be read (type `any`); `outputsOf`: the outputs of that step, for PB204 */
  | {
      kind: 'object';
      fields: ReadonlyMap<string, { type: Type; optional: boolean }>;
      open?: boolean;
      outputsOf?: string;
    }
  | { kind: 'nullable'; inner: Type };

export const STRING: Type = { kind: 'string' };
export const NUMBER: Type = { kind: 'number' };
export const INTEGER: Type = { kind: 'integer' };
export const BOOLEAN: Type = { kind: 'boolean' };
export const NULL: Type = { kind: 'null' };
export const ANY: Type = { kind: 'any' };

export function listOf(element: Type): Type {
  return { kind: 'list', element };
}

export function enumOf(members: readonly string[], origin?: string): Type {
  return origin === undefined ? { kind: 'enum', members } : { kind: 'enum', members, origin };
}

export function nullable(type: Type): Type {
  if (type.kind === 'nullable' || type.kind === 'null' || type.kind === 'any') return type;
  return { kind: 'nullable', inner: type };
}

export function nonNull(type: Type): Type {
  return type.kind === 'nullable' ? type.inner : type;
}

export function isNullable(type: Type): boolean {
  return type.kind === 'nullable' || type.kind === 'null';
}

export function fromTypeExpr(expr: TypeExpr): Type {
  switch (expr.kind) {
    case 'primitive':
      return { kind: expr.name };
    case 'list':
      return listOf(fromTypeExpr(expr.element));
    case 'enum':
      return enumOf(expr.members.map((m) => m.value));
    case 'object':
      return {
        kind: 'object',
        fields: new Map(
          expr.fields.map((f) => [f.name, { type: fromTypeExpr(f.type), optional: f.optional }]),
        ),
      };
    case 'nullable':
      return nullable(fromTypeExpr(expr.inner));
  }
}

/** A type as a message names it: cut like the file's own text (an enum may have thousands of members). */
export function typeForMessage(type: Type): string {
  return shown(typeToString(type), 2 * MAX_SHOWN);
}

export function typeToString(type: Type): string {
  switch (type.kind) {
    case 'list':
      return `list<${typeToString(type.element)}>`;
    case 'enum':
      return `enum(${type.members.map((m) => (/^[A-Za-z0-9_.-]+$/.test(m) ? m : JSON.stringify(m))).join(', ')})`;
    case 'object':
      return `{ ${[...type.fields].map(([n, f]) => `${n}${f.optional ? '?' : ''}: ${typeToString(f.type)}`).join(', ')} }`;
    case 'nullable':
      return `${typeToString(type.inner)}?`;
    default:
      return type.kind;
  }
}

/** Whether a value of type `source` may stand where `target` is expected. */
export function isAssignable(source: Type, target: Type): boolean {
  if (source.kind === 'any' || target.kind === 'any') return true;
  if (target.kind === 'nullable') {
    return source.kind === 'null' || isAssignable(nonNull(source), target.inner);
  }
  if (source.kind === 'nullable' || source.kind === 'null') return false;
  switch (target.kind) {
    case 'number':
      return source.kind === 'number' || source.kind === 'integer';
    case 'string':
      return source.kind === 'string' || source.kind === 'enum';
    case 'enum':
      return source.kind === 'enum' && source.members.every((m) => target.members.includes(m));
    case 'list':
      return source.kind === 'list' && isAssignable(source.element, target.element);
    case 'object':
      if (source.kind !== 'object') return false;
      for (const [name, field] of target.fields) {
        const other = source.fields.get(name);
        if (!other) {
          if (!field.optional) return false;
          continue;
        }
        if (
          !isAssignable(
            other.optional ? nullable(other.type) : other.type,
            field.optional ? nullable(field.type) : field.type,
          )
        )
          return false;
      }
      return true;
    default:
      return source.kind === target.kind;
  }
}

/** Whether a plain JSON value fits a type; `null` fits only nullable types. */
export function valueFits(value: unknown, type: Type): boolean {
  switch (type.kind) {
    case 'any':
      return true;
    case 'null':
      return value === null;
    case 'nullable':
      return value === null || valueFits(value, type.inner);
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      // (past 2^53 an integer is not what was written: 2^60 + 1 reads as 2^60)
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'enum':
      return typeof value === 'string' && type.members.includes(value);
    case 'list':
      return Array.isArray(value) && value.every((v) => valueFits(v, type.element));
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const record = value as Record<string, unknown>;
      for (const [name, field] of type.fields) {
        if (!Object.prototype.hasOwnProperty.call(record, name)) {
          if (!field.optional) return false;
        } else if (!valueFits(record[name], field.optional ? nullable(field.type) : field.type)) return false;
      }
      return Object.keys(record).every((k) => type.fields.has(k) || type.open === true);
    }
  }
}

export type JsonSchema = Record<string, unknown>;

/** The JSON Schema the runtime validates values against (inputs at Start, outputs in reports). */
export function toJsonSchema(type: Type): JsonSchema {
  switch (type.kind) {
    case 'any':
      return {};
    case 'null':
      return { type: 'null' };
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
      return { type: type.kind };
    case 'enum':
      return { type: 'string', enum: [...type.members] };
    case 'list':
      return { type: 'array', items: toJsonSchema(type.element) };
    case 'object': {
      const properties: Record<string, JsonSchema> = {};
      const required: string[] = [];
      for (const [name, field] of type.fields) {
        properties[name] = toJsonSchema(field.optional ? nullable(field.type) : field.type);
        if (!field.optional) required.push(name);
      }
      return { type: 'object', properties, required, additionalProperties: type.open === true };
    }
    case 'nullable':
      return { anyOf: [toJsonSchema(type.inner), { type: 'null' }] };
  }
}
