import type { Ir } from '@kairoku-playbook/compiler';
import {
  MASK,
  coerceInput,
  fingerprintSecrets,
  forTerminal,
  parseYaml,
  sameSecret,
} from '@kairoku-playbook/runtime';
import type { RunState, SecretFingerprint } from '@kairoku-playbook/runtime';
import { resolve } from 'node:path';
import type { ParsedArgs } from '../args.js';
import { displayPath } from '../discover.js';
import { UsageError, readPlaybookFile } from '../io.js';
import type { Terminal } from './terminal.js';

/**
 * Where a run's inputs come from on the command line. A secret on a command line is seen by every
 * user of the machine (`ps`), so secrets have two other ways in: a file (`--input-file`, YAML or
 * JSON) and an environment variable (`--input-env NAME=VAR`); and a required secret not given is
 * asked at the terminal without echo.
 */
export const INPUT_FLAGS = {
  input: 'string',
  'input-file': 'string',
  'input-env': 'string',
} as const;

export const INPUT_HELP = `  --input NAME=VALUE   a run input (repeatable); numbers, booleans and lists are read as JSON.
                       Not for secrets: a command line is visible to every user (ps)
  --input-file FILE    inputs from a YAML or JSON file of NAME: VALUE (repeatable), values as typed
                       there; the way to give a secret, or one on several lines
  --input-env NAME=VAR input NAME from the environment variable VAR (repeatable), read as --input
                       reads a value; the other way to give a secret
                       A name given several ways takes --input over --input-env over --input-file.
                       On a terminal, a required secret input given none of these ways is asked for,
                       without echo.`;

/**
 * The inputs a command line gives: each `--input-file` (later files win), then `--input-env`, then
 * `--input`, a later source winning for the same name. Values from the environment and from
 * `--input` are read as the input's type takes them (`coerceInput`); a file's are as typed there.
 * Errors name the input and the source, never a value.
 */
export function givenInputs(
  args: ParsedArgs,
  ir: Ir,
  cwd: string,
  env: NodeJS.ProcessEnv,
  fromFiles: Set<string> = new Set(),
): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const file of args.flags.get('input-file') ?? []) Object.assign(inputs, readInputFile(file, cwd));
  for (const name of Object.keys(inputs)) fromFiles.add(name);
  for (const pair of args.flags.get('input-env') ?? []) {
    const match = /^([^=]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(pair);
    if (!match)
      throw new UsageError(`--input-env takes NAME=VARIABLE (an environment variable's name), not "${pair}"`);
    const [, name, variable] = match as unknown as [string, string, string];
    const value = env[variable];
    if (value === undefined)
      throw new UsageError(
        `--input-env ${name}=${variable}: the environment variable ${variable} is not set`,
      );
    inputs[name] = coerceInput(ir, name, value);
    fromFiles.delete(name);
  }
  for (const pair of args.flags.get('input') ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--input takes NAME=VALUE, not "${forTerminal(pair)}"`);
    const name = pair.slice(0, eq);
    inputs[name] = coerceInput(ir, name, pair.slice(eq + 1));
    fromFiles.delete(name);
  }
  return inputs;
}

/** `--input-file FILE`: a mapping of input names to values (YAML, so JSON too). */
function readInputFile(file: string, cwd: string): Record<string, unknown> {
  const path = resolve(cwd, file);
  const shown = displayPath(path, cwd);
  const read = readPlaybookFile(path, shown);
  if ('diagnostic' in read) throw new UsageError(`--input-file ${shown}: ${read.diagnostic.message}`);
  const parsed = parseYaml(read.text);
  // The parser's message names a line and column, never the text there (which may be a secret).
  if ('error' in parsed) throw new UsageError(`--input-file ${shown}: ${parsed.error}`);
  const value = parsed.value ?? {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`--input-file ${shown} must hold a mapping of input names to values`);
  return value as Record<string, unknown>;
}

/**
 * Secret inputs given with `--input`, whose value any user of the machine can read on the command
 * line: taken, with a warning saying the other ways.
 */
export function secretsOnCommandLine(args: ParsedArgs, ir: Ir): string[] {
  const names = (args.flags.get('input') ?? []).map((pair) => pair.slice(0, Math.max(0, pair.indexOf('='))));
  return ir.inputs.filter((i) => i.secret && names.includes(i.name)).map((i) => i.name);
}

export function commandLineWarning(name: string): string {
  return `warning: secret input "${name}" was given on the command line, which other users of this machine can read (ps); give it with --input-env ${name}=VARIABLE or --input-file FILE`;
}

/** Required secret inputs without a default that `given` lacks: what a terminal may ask for. */
export function missingSecrets(ir: Ir, given: Record<string, unknown>): string[] {
  return ir.inputs
    .filter((i) => i.secret && i.required && i.default === undefined && !(i.name in given))
    .map((i) => i.name);
}

/**
 * Asks each secret input at the terminal, without echo; undefined when the terminal cannot ask so
 * (then the run says the input is required, and how to give it). End of input at the prompt is a
 * usage error.
 */
export async function askSecrets(
  ir: Ir,
  names: readonly string[],
  terminal: Terminal | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (!names.length) return {};
  const ask = terminal?.askSecret;
  if (!ask) return undefined;
  const asked: Record<string, unknown> = {};
  for (const name of names) {
    const input = ir.inputs.find((i) => i.name === name);
    const about = input?.description ? ` (${forTerminal(input.description, { oneLine: true })})` : '';
    const value = await ask.call(terminal, `secret input ${name}${about}: `);
    if (value === undefined) throw new UsageError(`secret input "${name}" was not given`);
    asked[name] = coerceInput(ir, name, value);
  }
  return asked;
}

/** Said after "input X is required" for a secret input: how to give one without a command line. */
export function secretHint(ir: Ir, errors: readonly string[]): string | undefined {
  const secret = ir.inputs.find(
    (i) => i.secret && errors.some((e) => e.startsWith(`input "${i.name}" is required`)),
  );
  if (!secret) return undefined;
  return `give secret input "${secret.name}" with --input-env ${secret.name}=VARIABLE or --input-file FILE, or run on a terminal to be asked for it`;
}

/**
 * The secret inputs of a stored run, given again for a restart: only the run's secret inputs may be
 * given (its other inputs are kept; a `--input-file`'s other names are passed over, so the file the run
 * was started with serves again), each from the command line's ways or else asked at the
 * terminal. A secret the run had and that is not given is a usage error — a check's env would
 * otherwise get the mask. A value that is not the one the run started with (its fingerprint
 * differs) is taken, and its fingerprints are added to the run's, so both are masked; `changed`
 * names such inputs. A sim run's `--scenario` inputs count as given. Synchronous unless the terminal
 * is asked.
 */
export function restartSecrets(
  state: RunState,
  args: ParsedArgs,
  cwd: string,
  env: NodeJS.ProcessEnv,
  terminal: Terminal | undefined,
  maskKey: Uint8Array,
  warn: (text: string) => void,
  scenarioInputs: Record<string, unknown> = {},
): RestartSecrets | Promise<RestartSecrets> {
  const ir = state.ir;
  const had = state.secretInputs.filter((name) => state.inputs[name] === MASK);
  for (const name of secretsOnCommandLine(args, ir)) warn(commandLineWarning(name));
  const fromFiles = new Set<string>();
  const given = givenInputs(args, ir, cwd, env, fromFiles);
  for (const name of Object.keys(given)) {
    if (had.includes(name)) continue;
    // The file the run was started with may be given again: its other inputs are left as they were.
    if (fromFiles.has(name)) {
      delete given[name];
      continue;
    }
    throw new UsageError(
      state.secretInputs.includes(name)
        ? `run ${state.id} was started without secret input "${name}"; a restart keeps the run's inputs`
        : `a restart keeps the run's inputs: "${name}" is not a secret input of run ${state.id}, so it is not given again`,
    );
  }
  // A sim run's scenario file, given again, holds its inputs as it did at the start.
  for (const name of had) if (!(name in given) && name in scenarioInputs) given[name] = scenarioInputs[name];
  const missing = had.filter((name) => !(name in given));
  const refuse = () =>
    new UsageError(
      `run ${state.id} needs its secret input${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')} again (secrets are never stored): give ${missing.length > 1 ? 'them' : 'it'} with --input-env NAME=VARIABLE or --input-file FILE, or restart on a terminal to be asked`,
    );
  if (!missing.length) return withSecrets(state, given, had, maskKey);
  if (!terminal?.askSecret) throw refuse();
  return askSecrets(ir, missing, terminal).then((asked) => {
    if (asked === undefined) throw refuse();
    return withSecrets(state, { ...given, ...asked }, had, maskKey);
  });
}

export interface RestartSecrets {
  secrets: Record<string, unknown>;
  /** the run, with fingerprints of values it had none for */
  state: RunState;
  /** secret inputs given another value than the run started with */
  changed: string[];
}

function withSecrets(
  state: RunState,
  secrets: Record<string, unknown>,
  had: readonly string[],
  maskKey: Uint8Array,
): RestartSecrets {
  const changed = had.filter(
    (name) => sameSecret(secrets[name], state.secretFingerprints?.[name], maskKey, state.id) === false,
  );
  // A changed value is fingerprinted beside the old one; a run that has no fingerprints yet (made
  // without a key) gets them now, so processes without the values mask them from here on.
  const unprinted = had.filter((name) => changed.includes(name) || !state.secretFingerprints?.[name]);
  const fresh = fingerprintSecrets(
    Object.fromEntries(unprinted.map((name) => [name, secrets[name]])),
    maskKey,
    state.id,
  );
  if (!Object.keys(fresh).length) return { secrets, state, changed };
  const prints: Record<string, SecretFingerprint[]> = { ...state.secretFingerprints };
  for (const [name, list] of Object.entries(fresh)) prints[name] = [...(prints[name] ?? []), ...list];
  return { secrets, state: { ...state, secretFingerprints: prints }, changed };
}
