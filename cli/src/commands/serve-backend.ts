/**
 * What `serve` needs from the backend it starts runs on (`--backend NAME`): its own flags, and once
 * they are parsed, what the run host is built with. serve.ts keeps one table of these (`SERVE_BACKENDS`);
 * each backend's flags are a file of its own (serve-paseo.ts, …), loaded only when it is chosen; the
 * hosting itself is the runtime's (`HostingBackend`, runtime/README.md "How to add a backend").
 */
import type { HostingBackend } from '@kairoku-playbook/runtime/serve';
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

/** A backend connected for serve: what `RunHost` is built with, and the start options it registers. */
export type ServeBackend = HostingBackend;

export interface ServeBackendEntry {
  /** the flags only this backend takes (refused with the others) */
  flags: Record<string, 'string' | 'boolean'>;
  /** the help's lines for them */
  help: string;
  setup: (request: ServeBackendRequest) => Promise<ServeBackend>;
}
