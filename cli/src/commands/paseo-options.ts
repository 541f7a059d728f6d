import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ParsedArgs } from '../args.js';
import { flag } from '../args.js';
import { UsageError } from '../io.js';

/** The Paseo flags of `run`, `runs restart`, `mcp --agents paseo` and `serve --backend paseo`. */
export const PASEO_FLAGS = {
  'paseo-host': 'string',
  'paseo-password-file': 'string',
  'paseo-provider': 'string',
  'paseo-model': 'string',
} as const;

/** Their help lines, the same in every command that takes them. */
export const PASEO_FLAGS_HELP = `  --paseo-host HOST:PORT
                       the Paseo daemon (default $PASEO_HOST, else 127.0.0.1:6767)
  --paseo-password-file F
                       the daemon's password, on the first line of F (default $PASEO_PASSWORD);
                       there is no option taking the password itself: argv is visible to all
  --paseo-provider NAME
                       the Paseo provider of roles and steps that name none (default claude);
                       NAME=OTHER sends those that name NAME to OTHER instead (repeatable)
  --paseo-model NAME   the model of roles and steps that name none (default: the provider's)`;

/** The Paseo flags `run`, `runs restart` and `mcp --agents paseo` share, as the backend takes them. */
export interface PaseoCliOptions {
  host: string;
  password?: string;
  defaultProvider?: string;
  providerMap?: Record<string, string>;
  defaultModel?: string;
}

/** A provider's id as Paseo spells them (`claude`, `codex`, a custom `my-acp`). */
const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The daemon (`--paseo-host`, else $PASEO_HOST, else 127.0.0.1:6767), its password
 * (`--paseo-password-file`, else $PASEO_PASSWORD: never a command-line value, which every user of
 * the machine can read with `ps`), and the providers and model of steps (`--paseo-provider NAME` for
 * those that name none, `--paseo-provider FROM=TO` to send a named one to another; `--paseo-model`).
 */
export function paseoOptions(args: ParsedArgs, env: NodeJS.ProcessEnv, cwd: string): PaseoCliOptions {
  const options: PaseoCliOptions = { host: flag(args, 'paseo-host') ?? (env.PASEO_HOST || '127.0.0.1:6767') };
  const file = flag(args, 'paseo-password-file');
  const password =
    file !== undefined ? readPassword(resolve(cwd, file), file) : env.PASEO_PASSWORD || undefined;
  if (password !== undefined) options.password = password;
  for (const value of args.flags.get('paseo-provider') ?? []) {
    const eq = value.indexOf('=');
    if (eq < 0) {
      checkProvider(value, value);
      if (options.defaultProvider !== undefined && options.defaultProvider !== value)
        throw new UsageError(
          `--paseo-provider names the default provider once (${options.defaultProvider} and ${value}); use FROM=TO to send a named provider to another`,
        );
      options.defaultProvider = value;
      continue;
    }
    const from = value.slice(0, eq);
    const to = value.slice(eq + 1);
    checkProvider(from, value);
    checkProvider(to, value);
    options.providerMap = { ...(options.providerMap ?? {}), [from]: to };
  }
  const model = flag(args, 'paseo-model');
  if (model !== undefined) {
    if (!model.trim()) throw new UsageError('--paseo-model needs a model name');
    options.defaultModel = model.trim();
  }
  return options;
}

function checkProvider(id: string, given: string): void {
  if (!PROVIDER_ID.test(id))
    throw new UsageError(
      `--paseo-provider takes NAME or FROM=TO with provider ids (letters, digits, . _ -), not "${given}"`,
    );
}

/** The password file's first line (a trailing newline is not part of it); empty or unreadable is an error. */
function readPassword(path: string, shown: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --paseo-password-file ${shown}: ${(error as Error).message}`);
  }
  const password = text.split(/\r?\n/, 1)[0] ?? '';
  if (!password)
    throw new UsageError(`--paseo-password-file ${shown} is empty: put the password on its first line`);
  return password;
}
