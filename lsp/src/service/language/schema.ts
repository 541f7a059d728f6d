/**
 * The JSON Schema of the playbook surface (grammar/schema/playbook.schema.json), navigated by key path:
 * which keys a mapping takes, what each means, which values a scalar takes. Names of steps, inputs and
 * the like walk through `additionalProperties`; `if`/`then`/`else` shapes offer the keys of every branch.
 */
import schema from '@kairoku-playbook/grammar/schema/playbook.schema.json' with { type: 'json' };

export interface SchemaNode {
  type?: string | string[];
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  enum?: unknown[];
  const?: unknown;
  $ref?: string;
  if?: SchemaNode;
  then?: SchemaNode;
  else?: SchemaNode;
  required?: string[];
  definitions?: Record<string, SchemaNode>;
}

export const PLAYBOOK_SCHEMA = schema as SchemaNode;

function resolve(node: SchemaNode | undefined): SchemaNode | undefined {
  let current = node;
  for (let guard = 0; current?.$ref && guard < 10; guard++) {
    const name = current.$ref.replace('#/definitions/', '');
    // A `$ref` beside a description keeps the description (`timeout` refers to `duration`).
    const target = PLAYBOOK_SCHEMA.definitions?.[name];
    current = target ? { ...target, description: current.description ?? target.description } : undefined;
  }
  return current;
}

/** The alternatives of a node: itself, or the branches of its `if`/`then`/`else`. */
function alternatives(node: SchemaNode | undefined): SchemaNode[] {
  const resolved = resolve(node);
  if (!resolved) return [];
  if (resolved.if || resolved.then || resolved.else) {
    return [...alternatives(resolved.then), ...alternatives(resolved.else)];
  }
  return [resolved];
}

/** The schema nodes a key path may lead to (several where the shape branches). */
export function schemaAt(path: readonly (string | number)[]): SchemaNode[] {
  let nodes: SchemaNode[] = [PLAYBOOK_SCHEMA];
  for (const key of path) {
    const next: SchemaNode[] = [];
    for (const node of nodes.flatMap(alternatives)) {
      if (typeof key === 'number') {
        if (node.items) next.push(node.items);
        continue;
      }
      const property = node.properties?.[key];
      if (property) next.push(property);
      else if (typeof node.additionalProperties === 'object') next.push(node.additionalProperties);
    }
    nodes = next;
    if (nodes.length === 0) break;
  }
  return nodes.flatMap(alternatives);
}

export interface SchemaKey {
  name: string;
  description: string | undefined;
  /** whether the value is a mapping (the key is best followed by a new line) */
  isMapping: boolean;
  required: boolean;
}

/** The fixed keys a mapping at this path takes; empty where the keys are names (steps, inputs…). */
export function keysAt(path: readonly (string | number)[]): SchemaKey[] {
  const keys = new Map<string, SchemaKey>();
  for (const node of schemaAt(path)) {
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      if (name === '$schema' || keys.has(name)) continue;
      const resolved = alternatives(property);
      const isMapping =
        resolved.length > 0 &&
        resolved.every((r) => r.type === 'object' || (r.type === undefined && r.properties !== undefined));
      keys.set(name, {
        name,
        description: resolve(property)?.description ?? property.description,
        isMapping,
        required: node.required?.includes(name) ?? false,
      });
    }
  }
  return [...keys.values()];
}

/** Whether the keys of the mapping at this path are names chosen by the author. */
export function takesNames(path: readonly (string | number)[]): boolean {
  return schemaAt(path).some((node) => typeof node.additionalProperties === 'object');
}

/** The description of the key at the end of a path. */
export function describeKey(path: readonly (string | number)[]): string | undefined {
  if (path.length === 0) return undefined;
  const parent = path.slice(0, -1);
  const name = path[path.length - 1];
  if (typeof name !== 'string') return undefined;
  for (const node of schemaAt(parent)) {
    const property = node.properties?.[name];
    if (property) return resolve(property)?.description ?? property.description;
  }
  return undefined;
}

/** The scalar values a key takes, when the schema lists them (enums, booleans). */
export function valuesAt(path: readonly (string | number)[]): string[] {
  const values = new Set<string>();
  for (const node of schemaAt(path)) {
    for (const value of node.enum ?? []) values.add(String(value));
    if (node.items) for (const value of resolve(node.items)?.enum ?? []) values.add(String(value));
    const types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
    if (types.includes('boolean')) {
      values.add('true');
      values.add('false');
    }
  }
  return [...values];
}
