// One value made from a declared type's JSON Schema: the sim backend's unscripted agents report them, the
// explorer stands them in for values no condition reads, and a test written for a person (PB810's fix, the
// coverage hint's new test) starts from them. Pure, and here so that the compiler can use it too.

/**
 * One representative value of a schema: an enum's first member, a string the hint, a number its
 * `minimum` (0 without one), a list one item. Also the explorer's stand-in for a value no condition reads.
 */
export function representative(
  schema: Record<string, unknown>,
  hint: string,
  string: (hint: string) => string = (path) => path,
): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.anyOf)) {
    const inner = (schema.anyOf as Record<string, unknown>[]).find((s) => s.type !== 'null');
    return inner ? representative(inner, hint, string) : null;
  }
  switch (schema.type) {
    case 'string':
      return string(hint);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return [
        representative((schema.items as Record<string, unknown> | undefined) ?? {}, `${hint}[0]`, string),
      ];
    case 'object': {
      const object: Record<string, unknown> = {};
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      for (const [name, property] of Object.entries(properties))
        object[name] = representative(property, `${hint}.${name}`, string);
      return object;
    }
    default:
      return string(hint);
  }
}
