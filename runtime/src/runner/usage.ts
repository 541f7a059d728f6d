import { DEFAULT_FLUSH_MS, DEFAULT_HEARTBEAT_INTERVAL_MS } from '../backends/kairoku/protocol.js';

// The runner's usage on its own, so the CLI answers `runner --help` at once (synchronously, as every
// other command's help) without loading the runner and its providers.

export const USAGE = `usage: kairoku-playbook runner --app URL --token-file FILE --repo PATH [options]

  --app URL               the app to dial out to (kairoku-playbook serve --backend kairoku, or run
                          --backend kairoku); plain http:// only on loopback, else https://
  --app-fingerprint FP    trust only the app certificate with this SHA-256 fingerprint (what serve
                          --tls-self-signed prints; hex, colons optional)
  --app-ca FILE           trust the app certificate if it chains to this CA (PEM); without either,
                          the system's CAs
  --token-file FILE       the app credential: the token alone, or KAIROKU_TOKEN=… (token.env)
  --repo PATH             the repository checkout dispatches run in (one git worktree each)
  --repository ID         the repository's id in claims (default: the real path of --repo)
  --capacity N            dispatches at once (default 1)
  --listen HOST:PORT      the loopback listener for GET /capacity (default 127.0.0.1:0)
  --provider NAME         what runs an agent: command, claude or codex (default: command
                          with --agent-command; without either, the runner runs checks only)
  --agent-command CMD     the command provider's agent process, run by the shell in the worktree
  --claude-executable P   the Claude Code executable the claude provider drives through the Claude
                          Agent SDK (default: the one the SDK ships)
  --codex-executable P    the codex executable of the codex provider (default: codex on the PATH)
  --work-dir DIR          logs, breadcrumbs and worktrees (default: a folder in the temp dir)
  --id ID                 the runner's id (default: machine name and a hash of the work dir)
  --machine NAME          the machine's name (default: the host name)
  --heartbeat-ms N        heartbeat interval until the app says otherwise (default ${DEFAULT_HEARTBEAT_INTERVAL_MS})
  --claim-ms N            claim interval while there is room (default 1000)
  --flush-ms N            active flush of events (default ${DEFAULT_FLUSH_MS}, RF-020)
  --grace-ms N            SIGTERM to SIGKILL grace of an agent's process group (default 2000)
  --keep-failed-worktrees keep the worktree of a failed dispatch (post-mortem)

The protocol, and the runner requirements (RF-…) it meets: docs/kairoku-protocol.md.`;
