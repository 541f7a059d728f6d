import { FileWriteError } from '@kairoku-playbook/runtime';
import { UsageError } from './io.js';
import type { CommandIo } from './io.js';

/**
 * Usage errors and files that could not be written (a full disk, a read-only one, wherever the error
 * comes from) are the user's to fix: one line, exit 2. Anything else is a bug, thrown on to the
 * process's handler (start.ts), which says so and exits 70.
 */
export function usageOrThrow(error: unknown, io: CommandIo): number {
  const refusal = refusalOf(error);
  if (refusal === undefined) throw error;
  io.stderr(`kairoku-playbook: ${refusal}\n`);
  return 2;
}

/** The sentence of an error that is the user's or the machine's to fix (exit 2), or undefined for a bug. */
export function refusalOf(error: unknown): string | undefined {
  if (error instanceof UsageError) return error.message;
  return FileWriteError.from(error)?.message;
}
