import type { Ir, WorkspaceFileSystem } from '@kairoku-playbook/compiler';
import type { RunState } from '@kairoku-playbook/machine';
import type { HostResult, RunHost, StartOptions } from '../host/run-host.js';
import type { CurrentAgentAnswer, PlaybookCard, RunBounds } from '@kairoku-playbook/protocol';

export interface ServeOptions {
  host: RunHost;
  /** where to listen (default 127.0.0.1:7420; port 0 picks a free one); loopback only */
  listen?: { host: string; port: number };
  /** the session token (default: 32 random bytes); given by tests, never logged */
  token?: string;
  /** the panel's built files (`index.html`, and what it loads as `assets/NAME`: `panel.js`, …) */
  assetsDir?: string;
  /** the same files held in memory, name → text (the CLI's bundle embeds them); `assetsDir` wins */
  panelFiles?: Readonly<Record<string, string>>;
  /** what the backend supports at start (the start form's options) */
  startOptions?: PlaybookCard['startOptions'];
  /**
   * a start with `newAgent`: the run is made with a manager agent of its own (`paseo`), which drives
   * it instead of serve; offered when `startOptions.newAgent` is
   */
  startWithNewAgent?: (
    ir: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions,
  ) => Promise<HostResult<{ state: RunState; warnings: string[] }>>;
  /**
   * the worst case of a run of a compiled playbook (`GET /api/v1/bounds`): the CLI runs `compile` in a
   * process of its own, as the explorer can take seconds; default: machine's `withBounds` in this
   * process, which stalls the event loop that long (fine for tests and small playbooks)
   */
  bounds?: (file: string, ir: Ir) => Promise<RunBounds | undefined>;
  /** the workspace's current agent (`GET /api/v1/current-agent`); offered when `startOptions.currentAgent` is */
  currentAgent?: () => Promise<CurrentAgentAnswer>;
  /** a start with `currentAgent`: the agent named becomes the run's manager (`paseo`) */
  startWithCurrentAgent?: (
    ir: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions,
    agentId: string,
  ) => Promise<HostResult<{ state: RunState; warnings: string[] }>>;
  /** why a start option is not offered here, said in its refusal (default: the backend has none) */
  unofferedWhy?: Partial<Record<'newAgent' | 'worktree', string>>;
  /** a line per request (method, path without query, status); never a token or a body */
  log?: (line: string) => void;
  /**
   * how long an operation on a run another live process drives waits for that process to take it
   * (it looks once a second; default 5 s): past it, the request is taken back and refused
   */
  askTimeoutMs?: number;
  /** events kept for clients that reconnect (default 1000) */
  keepEvents?: number;
  /** a comment on idle event streams, so proxies and clients see the stream alive (default 15 s) */
  heartbeatMs?: number;
  /**
   * watch the workspace for playbook changes (default true): the loaded workspace is kept and loaded
   * again after a change; without a working watch it is looked at every `watchPlaybooksMs` (default 2 s)
   */
  watchPlaybooks?: boolean;
  watchPlaybooksMs?: number;
  /**
   * archive the workspace's runs that ended more than this many days ago, at start and every hour
   * (`serve --archive-after DAYS`; never deletes); default: never
   */
  archiveAfterDays?: number;
  /** the file system the workspace is loaded from (default the disk); tests count its reads */
  workspaceFs?: WorkspaceFileSystem;
}

export interface RunningServe {
  /** `http://ADDRESS:PORT`, the address serve is bound to (`http://127.0.0.1:7420`, `http://[::1]:7420`) */
  url: string;
  port: number;
  token: string;
  /** a login URL (`/?login=NONCE`): it logs one browser in, once, within `LOGIN_TTL_MS` */
  loginUrl: string;
  /** another login URL, for another browser (`POST /api/v1/login-urls` answers one too) */
  newLoginUrl(): string;
  close(): Promise<void>;
}
