/**
 * Where the store is, and nothing else: a module of its own so that shell completion (the CLI's smallest
 * bundle, `kairoku-playbook.complete.cjs`) can list run ids without loading the store.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$KAIROKU_PLAYBOOK_HOME`, else `~/.kairoku-playbook`. */
export function defaultHome(env: Record<string, string | undefined> = process.env): string {
  return env.KAIROKU_PLAYBOOK_HOME || join(homedir(), '.kairoku-playbook');
}

/** The folder of the run files (`ID.json`) under a store's home. */
export function runsFolder(home: string): string {
  return join(home, 'runs');
}
