/**
 * The built-in functions of the expression language (SPEC §3.6), as data for the compiler (arity and type
 * checks, PB402), the runtime and the language server (completion, hover, signature help).
 */

export interface BuiltinFunction {
  name: string;
  /** The fewest arguments a call may pass. */
  minArgs: number;
  /** The most arguments a call may pass; `Infinity` for a variadic function. */
  maxArgs: number;
  /** For docs and hover, e.g. `startsWith(text: string, prefix: string): boolean`. */
  signature: string;
  description: string;
}

export const BUILTIN_FUNCTIONS: readonly BuiltinFunction[] = [
  {
    name: 'contains',
    minArgs: 2,
    maxArgs: 2,
    signature: 'contains(haystack: string | list, needle: any): boolean',
    description:
      'True when the string `haystack` contains the text `needle`, or when the list `haystack` has an item equal to `needle`.',
  },
  {
    name: 'startsWith',
    minArgs: 2,
    maxArgs: 2,
    signature: 'startsWith(text: string, prefix: string): boolean',
    description: 'True when `text` starts with `prefix` (case-sensitive).',
  },
  {
    name: 'endsWith',
    minArgs: 2,
    maxArgs: 2,
    signature: 'endsWith(text: string, suffix: string): boolean',
    description: 'True when `text` ends with `suffix` (case-sensitive).',
  },
  {
    name: 'join',
    minArgs: 1,
    maxArgs: 2,
    signature: 'join(items: list, separator?: string): string',
    description: 'The items of the list as text, separated by `separator` (`","` when it is left out).',
  },
  {
    name: 'len',
    minArgs: 1,
    maxArgs: 1,
    signature: 'len(value: string | list): integer',
    description: 'The number of characters of a string, or of items of a list.',
  },
  {
    name: 'toJSON',
    minArgs: 1,
    maxArgs: 1,
    signature: 'toJSON(value: any): string',
    description: 'The value as JSON text, e.g. to hand a list or an object to an agent.',
  },
  {
    name: 'format',
    minArgs: 1,
    maxArgs: Infinity,
    signature: 'format(template: string, ...values: any): string',
    description:
      "The template with `{0}`, `{1}`, … replaced by the values that follow it, as text; `{{` and `}}` write literal braces. Example: `format('{0} and {1}', a, b)`.",
  },
  {
    name: 'default',
    minArgs: 2,
    maxArgs: 2,
    signature: 'default(value: T?, fallback: T): T',
    description:
      'The value, or `fallback` when the value is null (for instance the output of a step that may be skipped). The result is not nullable unless `fallback` is.',
  },
];

const byName = new Map(BUILTIN_FUNCTIONS.map((fn) => [fn.name, fn]));

/** The names of the built-in functions, in table order. */
export const BUILTIN_FUNCTION_NAMES: readonly string[] = BUILTIN_FUNCTIONS.map((fn) => fn.name);

/** The built-in function called `name`, if there is one (case-sensitive). */
export function getBuiltinFunction(name: string): BuiltinFunction | undefined {
  return byName.get(name);
}

const CONTEXT_ROOT_NAMES = ['inputs', 'steps', 'run', 'loop', 'report', 'gate'] as const;

/** A context root: a name an expression may start from (SPEC §3.6). */
export type ContextRoot = (typeof CONTEXT_ROOT_NAMES)[number];

/** The context roots an expression may start from (SPEC §3.6), in this order; the one list of them. */
export const CONTEXT_ROOTS: readonly string[] = CONTEXT_ROOT_NAMES;

/** Whether `name` is a context root. */
export function isContextRoot(name: string): name is ContextRoot {
  return CONTEXT_ROOTS.includes(name);
}
