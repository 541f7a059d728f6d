import { UsageError } from './usage-error.js';

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string[]>;
}

/**
 * A small flag parser: `--name value`, `--name=value`, boolean `--name`, `-o value`.
 * Only the flags a command declares are accepted; anything else is a usage error.
 */
export function parseArgs(
  argv: readonly string[],
  spec: Record<string, 'boolean' | 'string'>,
  aliases: Record<string, string> = {},
): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    let name = arg.startsWith('--') ? arg.slice(2, eq > 0 ? eq : undefined) : (aliases[arg.slice(1)] ?? '');
    if (!arg.startsWith('--')) name = aliases[arg.slice(1)] ?? arg;
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option ${arg.split('=')[0]}`);
    let value = 'true';
    if (kind === 'string') {
      if (eq > 0 && arg.startsWith('--')) value = arg.slice(eq + 1);
      else {
        const next = argv[i + 1];
        if (next === undefined || (next.startsWith('-') && next !== '-'))
          throw new UsageError(`option --${name} needs a value`);
        value = next;
        i++;
      }
    } else if (eq > 0) throw new UsageError(`option --${name} takes no value`);
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positionals, flags };
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  const values = args.flags.get(name);
  return values?.[values.length - 1];
}

export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  name: string,
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`--${name} must be one of ${allowed.join(', ')}, not "${value}"`);
}
