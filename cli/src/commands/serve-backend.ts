/**
 * What `serve` needs from the backend it starts runs on (`--backend NAME`): its own flags, and once
 * they are parsed, what the run host is built with. serve.ts keeps one table of these (`SERVE_BACKENDS`);
 * each backend's wiring is a file of its own (serve-paseo.ts, …), loaded only when it is chosen.
 */
import type { Backend, BackendContext, RunState } from '@kairoku-playbook/runtime';
import type { Ir } from '@kairoku-playbook/compiler';
import type { HostResult, PlaybookCard, RunHost, StartOptions } from '@kairoku-playbook/runtime/serve';
import type { ParsedArgs } from '../args.js';
import type { CommandIo } from '../io.js';

export interface ServeBackendRequest {
  args: ParsedArgs;
  io: CommandIo;
  env: NodeJS.ProcessEnv;
  /** the store's home */
  home: string;
  /** the workspace serve owns (its real path) */
  workspace: string;
  log: (line: string) => void;
}

/** A backend connected for serve: what `RunHost` is built with, and what the start form offers. */
export interface ServeBackend {
  backendFor: (state: RunState) => Backend;
  /** recovery: whether a run's manager still exists (default: presumed alive) */
  managerExists?: (manager: string) => boolean;
  /** recovery: watch the agents of a run taken up again (`RunHostOptions.adopt`) */
  adopt?: (state: RunState, backend: Backend, context: BackendContext) => void;
  /** once the host's recovery has taken up the runs, before serve listens */
  recovered?: () => void;
  /** what the start form offers (default: nothing beyond the inputs) */
  startOptions?: PlaybookCard['startOptions'];
  /** a start with `newAgent`: the run gets a manager agent of its own (offered by `startOptions`) */
  startWithNewAgent?: (
    host: RunHost,
    ir: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions,
  ) => Promise<HostResult<{ state: RunState; warnings: string[] }>>;
  /** why a start option is not offered in this configuration (said in its refusal) */
  unofferedWhy?: Partial<Record<'newAgent' | 'worktree', string>>;
  /** lines for standard output once serve listens (where runners dial in, the fingerprint) */
  banner?: string[];
  /** lets go of what setup opened (connections kept for the whole serve) */
  close?: () => Promise<void>;
}

export interface ServeBackendEntry {
  /** the flags only this backend takes (refused with the others) */
  flags: Record<string, 'string' | 'boolean'>;
  /** the help's lines for them */
  help: string;
  setup: (request: ServeBackendRequest) => Promise<ServeBackend>;
}
