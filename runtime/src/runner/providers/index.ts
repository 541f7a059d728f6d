import type { RunnerOptions } from '../options.js';
import { ClaudeProvider } from './claude.js';
import { CodexProvider } from './codex.js';
import { CommandProvider } from './command.js';
import type { Provider } from './types.js';

export { isProviderName } from './names.js';
export type { Launched, Provider } from './types.js';

/** The provider the runner's options name, undefined for a runner that runs checks only. */
export function providerFor(
  options: Pick<RunnerOptions, 'provider' | 'agentCommand' | 'claudeExecutable' | 'codexExecutable'>,
): Provider | undefined {
  switch (options.provider) {
    case 'command':
      return new CommandProvider(options.agentCommand!);
    case 'claude':
      return new ClaudeProvider(options.claudeExecutable);
    case 'codex':
      return new CodexProvider(options.codexExecutable ?? 'codex');
    default:
      return undefined;
  }
}
