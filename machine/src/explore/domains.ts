import type { Ir, IrAfterTask, IrStep } from '@kairoku-playbook/compiler';
import { representative } from '@kairoku-playbook/compiler';
import { generatedOutputs } from '../core/representative.js';
import { checkNamedValues } from '../core/schemas.js';
import type { WhenReads } from './reads.js';

/**
 * Small value domains. A `when` condition is decided by the real transition function over concrete
 * values, so the explorer needs a finite set of values per input (and per step output a condition
 * reads) that makes every condition take each truth value it can take. The domain of a value:
 *
 * - `boolean`: false, true; `enum(...)`: every member;
 * - `integer`, `number`: 0, the default, `min`, `max`, and c-1, c, c+1 for every number c in a
 *   condition that reads the value (clipped to min..max);
 * - `string`: the default, a representative, `''`, and every string in a condition that reads it;
 * - `list<T>`: `[]`, one representative item, `[s]` for a string s of the condition, and n items for a
 *   number n of the condition (2..16, for `len(...)`);
 * - an object: one representative;
 * - a value that may be absent (a nullable output, an output not reported, an optional input without
 *   a default): also absent.
 *
 * Values that do not fit the schema (a pattern, min/max) are dropped. Inputs and outputs no condition
 * reads cannot steer a run, so they get one value: the default or a representative.
 */

/** Stands for "absent" in a domain: the key is left out. */
export const ABSENT: unique symbol = Symbol('absent');

type Schema = Record<string, unknown>;

/** Beyond this many combinations, a domain is cut (the result says so). */
export const MAX_INPUT_VARIANTS = 256;
export const MAX_OUTPUT_VARIANTS = 64;

export interface Variants<T> {
  values: T[];
  /** the product was cut at the limit */
  cut: boolean;
}

/** The candidate values of a schema, given the literals of the conditions that read it. */
export function domainOf(schema: Schema, literals: readonly unknown[], hint: string, mayBeAbsent: boolean) {
  const values: unknown[] = [];
  const seen = new Set<string>();
  const add = (value: unknown) => {
    const key = value === ABSENT ? '\u0000absent' : JSON.stringify(value);
    if (seen.has(key)) return;
    seen.add(key);
    values.push(value);
  };
  if ('default' in schema) add(schema.default);
  const nullable = Array.isArray(schema.anyOf) && (schema.anyOf as Schema[]).some((s) => s.type === 'null');
  const inner = nullable ? ((schema.anyOf as Schema[]).find((s) => s.type !== 'null') ?? {}) : schema;
  for (const value of plainDomain(inner, literals, hint)) add(value);
  if (nullable) add(null);
  if (mayBeAbsent) add(ABSENT);
  return values;
}

function plainDomain(schema: Schema, literals: readonly unknown[], hint: string): unknown[] {
  const numbers = literals.filter((l): l is number => typeof l === 'number' && Number.isFinite(l));
  const strings = literals.filter((l): l is string => typeof l === 'string');
  if (Array.isArray(schema.enum)) return [...(schema.enum as unknown[])];
  switch (schema.type) {
    case 'boolean':
      return [false, true];
    case 'integer':
    case 'number': {
      const integer = schema.type === 'integer';
      const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
      const found = new Set<number>([0]);
      if (Number.isFinite(min)) found.add(min);
      if (Number.isFinite(max)) found.add(max);
      for (const c of numbers) {
        for (const v of integer
          ? [Math.floor(c) - 1, Math.floor(c), Math.ceil(c), Math.ceil(c) + 1]
          : [c - 1, c, c + 1])
          found.add(v);
      }
      return [...found].filter((v) => v >= min && v <= max).sort((a, b) => a - b);
    }
    case 'string':
      return [representative(schema, hint), '', ...strings];
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const item = representative(items, `${hint}[0]`);
      const lists: unknown[] = [[], [item]];
      const itemIsString = items.type === 'string' || Object.keys(items).length === 0;
      if (itemIsString) for (const s of strings) lists.push([s]);
      for (const n of numbers)
        for (const size of [n - 1, n, n + 1])
          if (Number.isInteger(size) && size >= 2 && size <= 16)
            lists.push(Array.from({ length: size }, () => item));
      return lists;
    }
    default:
      return [representative(schema, hint)];
  }
}

function fits(schema: Schema, name: string, value: unknown): boolean {
  if (value === ABSENT) return true;
  const single = { type: 'object', properties: { [name]: schema }, additionalProperties: false };
  return checkNamedValues(single, { [name]: value }, 'value', 'the explorer').length === 0;
}

/** The product of per-name domains, as objects; ABSENT leaves the name out. Cut at `limit`. */
function product(
  base: Record<string, unknown>,
  domains: [string, unknown[]][],
  limit: number,
): Variants<Record<string, unknown>> {
  let values: Record<string, unknown>[] = [{ ...base }];
  let cut = false;
  for (const [name, domain] of domains) {
    const next: Record<string, unknown>[] = [];
    for (const partial of values) {
      for (const value of domain) {
        if (next.length >= limit) {
          cut = true;
          break;
        }
        const copy = { ...partial };
        if (value === ABSENT) delete copy[name];
        else copy[name] = value;
        next.push(copy);
      }
    }
    values = next;
  }
  return { values, cut };
}

/**
 * The run inputs to explore: the product of the domains of the inputs some condition reads; every
 * other input takes its default, or a representative when it is required. Secret values never matter
 * (the state holds them masked, and so do conditions).
 */
export function inputVariants(ir: Ir, reads: WhenReads): Variants<Record<string, unknown>> {
  const properties = (ir.inputSchema.properties ?? {}) as Record<string, Schema>;
  const base: Record<string, unknown> = {};
  const domains: [string, unknown[]][] = [];
  for (const input of ir.inputs) {
    const schema = properties[input.name] ?? {};
    const read = reads.allInputs || reads.inputs.has(input.name);
    if (!read) {
      if ('default' in input) base[input.name] = input.default;
      else if (input.required) base[input.name] = representative(schema, input.name);
      continue;
    }
    const absent = !input.required && !('default' in input);
    const candidates = domainOf(schema, reads.literals.get(`inputs.${input.name}`) ?? [], input.name, absent);
    const domain = candidates.filter((v) => fits(schema, input.name, v));
    // A required input no candidate fits (a pattern): keep a representative; its value is then a guess.
    domains.push([input.name, domain.length ? domain : [representative(schema, input.name)]]);
  }
  return product(base, domains, MAX_INPUT_VARIANTS);
}

/**
 * The outputs a step's report may carry for an outcome: what the sim backend would report, with every
 * combination of the domains of the outputs some condition reads.
 */
export function outputVariants(
  ir: IrStep | IrAfterTask,
  outcome: string,
  reads: WhenReads,
  isAfter: boolean,
): Variants<Record<string, unknown>> {
  const base = generatedOutputs(ir, outcome);
  if (isAfter) return { values: [base], cut: false };
  const step = reads.steps.get((ir as IrStep).index);
  if (!step) return { values: [base], cut: false };
  const properties = (ir.outputSchema.properties ?? {}) as Record<string, Schema>;
  const domains: [string, unknown[]][] = [];
  for (const [name, schema] of Object.entries(properties)) {
    if (!step.allOutputs && !step.outputs.has(name)) continue;
    const candidates = domainOf(
      schema,
      reads.literals.get(`${ir.name}.${name}`) ?? [],
      `${ir.name}.${name}`,
      true,
    );
    if (base[name] !== undefined && !candidates.some((c) => JSON.stringify(c) === JSON.stringify(base[name])))
      candidates.unshift(base[name]);
    domains.push([name, candidates.filter((v) => fits(schema, name, v))]);
  }
  return product(base, domains, MAX_OUTPUT_VARIANTS);
}
