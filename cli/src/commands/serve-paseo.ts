/**
 * `serve --backend paseo`: the Paseo flags parsed (paseo-options.ts: the password from a file or
 * $PASEO_PASSWORD, never a command-line value) and handed to the runtime's `paseo.hostPaseoRuns`,
 * which connects the daemon, takes up the workspace's runs, and registers Paseo's start options
 * (`newAgent`: a run with a manager agent of its own). See runtime/src/backends/paseo/serve-backend.ts.
 */
import { resolve } from 'node:path';
import { PASEO_FLAGS, paseoOptions } from './paseo-options.js';
import type { ServeBackend, ServeBackendEntry, ServeBackendRequest } from './serve-backend.js';
import { flag } from '../args.js';
import { UsageError } from '../io.js';
import { selfCommand } from '../self-command.js';
import { PASEO_SERVE_HELP } from './serve-help.js';

export const PASEO_SERVE: ServeBackendEntry = {
  flags: { ...PASEO_FLAGS, 'paseo-keep-agents': 'boolean' },
  help: PASEO_SERVE_HELP,
  setup: setupPaseo,
};

async function setupPaseo(request: ServeBackendRequest): Promise<ServeBackend> {
  const { args, env, io, home, workspace, log } = request;
  const daemon = paseoOptions(args, env, io.cwd);
  const passwordFlag = flag(args, 'paseo-password-file');
  // Loaded only here: the paseo backend brings ws and the MCP SDK's HTTP transport.
  const { paseo } = await import('@kairoku-playbook/runtime/backends');
  const { HostingRefused } = await import('@kairoku-playbook/runtime/serve');
  try {
    return await paseo.hostPaseoRuns({
      daemon,
      ...(passwordFlag !== undefined ? { passwordFile: resolve(io.cwd, passwordFlag) } : {}),
      selfCommand: selfCommand(),
      keepAgents: args.flags.has('paseo-keep-agents'),
      home,
      workspace,
      log,
    });
  } catch (error) {
    if (error instanceof HostingRefused) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
