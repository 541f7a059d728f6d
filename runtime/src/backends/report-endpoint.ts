import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { dirname } from 'node:path';
import { z } from 'zod';
import { FILE_LIMITS, readTextBounded } from '@kairoku-playbook/compiler/disk';
import { describeForbidden, forbiddenKey } from '@kairoku-playbook/machine';
import { storeKey } from '../store/step-token.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { resolveBindAddress } from './bind-address.js';
import { LISTENER_OPTIONS, discardBody, readBody } from './http-body.js';
import type { BodyLimits } from './http-body.js';

/** The one run, step and attempt a token may report for. */
export interface ReportBinding {
  run: string;
  step: string;
  attempt: number;
  /** the step's declared outcomes and outputs (`name: type`), shown in the tool's description */
  outcomes?: string[];
  outputs?: string[];
}

export interface StepReport {
  outcome: string;
  summary?: string;
  outputs?: Record<string, unknown>;
}

export interface ReportEndpointOptions {
  /** loopback only: a step agent's endpoint is never offered off the machine (default 127.0.0.1) */
  host?: string;
  /** 0 (the default) picks a free port, or the one `portFile` keeps */
  port?: number;
  /** a request body must arrive within this (default 30 s) */
  bodyTimeoutMs?: number;
  /**
   * the store's home: tokens are HMACs under its key (`mcp.key`), so a later process with the same
   * home mints the same token for the same binding (default: a key of this process alone)
   */
  home?: string;
  /**
   * a file that keeps the port (JSON `{port}`): tried first while it is free, and written with the port
   * taken, so the next endpoint started with it answers where the agents of this one report
   */
  portFile?: string;
  /** a report for a token's binding: the refusal, or undefined when the run accepted it */
  onReport(binding: ReportBinding, report: StepReport): string | undefined;
  /**
   * a request that was refused before it reached a run (unknown, revoked or missing token); a revoked
   * token's binding is known, so the refusal can be written into its run's history
   */
  onRejected?(reason: string, binding?: ReportBinding): void;
}

export interface ReportEndpoint {
  /** the MCP (Streamable HTTP) address step agents are given, `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** a bearer token bound to one run, step and attempt, good until revoked or its report is accepted */
  mint(binding: ReportBinding): string;
  revoke(token: string): void;
  /**
   * the binding's token is refused, and why (an agent of an earlier process that cannot report here
   * any more): its refusal says that reason, not that the token is unknown
   */
  deny(binding: Pick<ReportBinding, 'run' | 'step' | 'attempt'>, reason: string): void;
  /** every token minted and not yet revoked (nothing should be left when a run ends) */
  liveTokens(): number;
  close(): Promise<void>;
  /**
   * a later process started with the same home and port file answers at this address and mints the
   * same tokens (serve's endpoint): the agents of this one can still report to it
   */
  persistent?: boolean;
  /** the port the port file kept, when something else held it and another was taken */
  movedFrom?: number;
}

/** What a run does with the reports of its tokens (`SharedReportEndpoint.attach`). */
export type ReportHandlers = Pick<ReportEndpointOptions, 'onReport' | 'onRejected'>;

/**
 * One report endpoint for every run of a long-lived host (`serve --backend paseo`): each run's backend
 * attaches its handlers, and a run that ends detaches them without closing the endpoint.
 */
export interface SharedReportEndpoint extends ReportEndpoint {
  /** routes the reports of the run's tokens to its handlers, until the function returned is called */
  attach(run: string, handlers: ReportHandlers): () => void;
  /**
   * lets requests through: until then they wait, so the recovery re-mints the tokens of the agents it
   * adopts before one of them is judged unknown
   */
  open(): void;
}

const MAX_BODY_BYTES = 1024 * 1024;
/**
 * The start of every report token's HMAC message: a step-agent token's message (store/step-token.ts) is
 * `run\nstep\nattempt`, so one is never the other's, under the same key. (They differ in form too:
 * 43 base64url characters here, 32 hex there.)
 */
const REPORT_TOKEN_DOMAIN = 'kairoku-playbook report token\0';

/**
 * A report token: an HMAC of its run, step and attempt (unique within a store: attempt numbers only
 * grow within a run). Under the store's key, the same token for the same binding in every process of
 * that store, so a restarted serve recognises the token of an agent it adopts; whether it is taken is
 * the service's list of live tokens, not the token itself.
 */
export function reportToken(key: Buffer, binding: Pick<ReportBinding, 'run' | 'step' | 'attempt'>): string {
  return createHmac('sha256', key)
    .update(`${REPORT_TOKEN_DOMAIN}${binding.run}\0${binding.step}\0${binding.attempt}`)
    .digest('base64url');
}

/** revoked tokens remembered, to say why a replay is refused */
const REVOKED_KEPT = 10_000;

/**
 * The step agents' MCP endpoint: one tool, `report_step_result`, over Streamable HTTP, where the
 * bearer token names the run, step and attempt (a per-dispatch credential, RF-008). A token is
 * revoked once its report is accepted, so a replay is refused; a refused report (outputs that do not
 * fit, an undeclared outcome) leaves it valid, so the agent can correct itself.
 *
 * A token is an HMAC of its binding (`reportToken`), and is taken only while it is live here: minted
 * by this process and not revoked. Without `home` the key is this process's alone, so its agents
 * cannot report once it is gone (`run --backend paseo`: the lost-agent rule takes over). With `home`
 * and `portFile` (serve), a restarted process listens at the same address and re-mints the token of
 * each agent it adopts that still works on its attempt; the token of an attempt that ended (reported,
 * stopped, lost) is never minted again, so it stays refused.
 */
export async function startReportEndpoint(options: ReportEndpointOptions): Promise<ReportEndpoint> {
  return listenReports(options, reportService(options, keyOf(options)));
}

/**
 * `startReportEndpoint` for every run of a serve: one listener, tokens under the store's key, and
 * requests held until `open` (the recovery re-mints adopted agents' tokens first).
 */
export async function startSharedReportEndpoint(
  options: Omit<ReportEndpointOptions, 'onReport' | 'onRejected'> & {
    /** a report refused before it reached a run no run is attached for */
    log?: (message: string) => void;
  },
): Promise<SharedReportEndpoint> {
  const runs = new Map<string, ReportHandlers>();
  let open!: () => void;
  const ready = new Promise<void>((resolve) => (open = resolve));
  const service = reportService(
    {
      ...options,
      onReport: (binding, report) => {
        const handlers = runs.get(binding.run);
        return handlers
          ? handlers.onReport(binding, report)
          : `run ${binding.run} is not driven here any more: its report is not taken`;
      },
      onRejected: (reason, binding) => {
        const handlers = binding ? runs.get(binding.run) : undefined;
        if (handlers?.onRejected) handlers.onRejected(reason, binding);
        else options.log?.(`a report was refused before it reached a run: ${reason}`);
      },
    },
    keyOf(options),
    ready,
  );
  const endpoint = await listenReports(options, service);
  return {
    ...endpoint,
    attach(run, handlers) {
      runs.set(run, handlers);
      return () => {
        if (runs.get(run) === handlers) runs.delete(run);
      };
    },
    open,
    close: () => {
      open();
      return endpoint.close();
    },
  };
}

function keyOf(options: Pick<ReportEndpointOptions, 'home'>): Buffer {
  return options.home === undefined ? randomBytes(32) : storeKey(options.home);
}

async function listenReports(
  options: ReportEndpointOptions | Omit<ReportEndpointOptions, 'onReport'>,
  service: ReportService,
): Promise<ReportEndpoint> {
  const host = await resolveBindAddress(options.host ?? '127.0.0.1', {
    what: 'the report endpoint',
  });
  const kept = options.port || options.portFile === undefined ? undefined : keptPort(options.portFile);
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server: Server = createServer(LISTENER_OPTIONS, (req, res) => service.handle(req, res));
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve(server);
      });
    });
  let server: Server;
  let movedFrom: number | undefined;
  try {
    server = await listen(options.port ?? kept ?? 0);
  } catch (error) {
    if (kept === undefined || (error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    // Something else took the kept port since: another is taken, and the agents given the old one
    // cannot report (their backend sees it by their label, and loses them with that reason).
    server = await listen(0);
    movedFrom = kept;
  }
  const address = server.address() as AddressInfo;
  if (options.portFile !== undefined && address.port !== kept) {
    mkdirSync(dirname(options.portFile), { recursive: true, mode: 0o700 });
    writeFileAtomic(options.portFile, `${JSON.stringify({ port: address.port })}\n`);
  }
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    mint: service.mint,
    revoke: service.revoke,
    deny: service.deny,
    liveTokens: service.liveTokens,
    persistent: options.home !== undefined && options.portFile !== undefined,
    ...(movedFrom !== undefined ? { movedFrom } : {}),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The port a port file keeps, or undefined when there is none (or it cannot be read). */
function keptPort(file: string): number | undefined {
  const read = readTextBounded(file, FILE_LIMITS.small, 'a port file');
  if (read.problem !== undefined) return undefined;
  try {
    const port = (JSON.parse(read.text) as { port?: unknown }).port;
    return typeof port === 'number' && Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** The report endpoint without a listener of its own: what serves `POST /mcp`, and its tokens. */
export interface ReportService {
  /** answers one request to `/mcp` (any other path is 404) */
  handle(req: IncomingMessage, res: ServerResponse): void;
  mint(binding: ReportBinding): string;
  revoke(token: string): void;
  deny: ReportEndpoint['deny'];
  liveTokens(): number;
}

/**
 * The report endpoint's requests and tokens, for a listener that serves it beside other routes (the
 * Kairoku app serves it on its own TLS listener, so an agent on a runner's machine reaches it).
 */
export function reportService(
  options: Pick<ReportEndpointOptions, 'onReport' | 'onRejected' | 'bodyTimeoutMs'>,
  /** the HMAC key of its tokens (default: a key of this process alone) */
  key: Buffer = randomBytes(32),
  /** requests wait for it before their token is looked up */
  ready?: Promise<void>,
): ReportService {
  const live = new Map<string, ReportBinding>();
  const revoked = new Map<string, ReportBinding>();
  /** tokens refused for a reason of their own (`deny`) */
  const denied = new Map<string, string>();
  const revoke = (token: string) => {
    const binding = live.get(token);
    if (!binding || !live.delete(token)) return;
    revoked.set(token, binding);
    forgetOldest(revoked);
  };

  const limits = {
    maxBytes: MAX_BODY_BYTES,
    ...(options.bodyTimeoutMs !== undefined ? { timeoutMs: options.bodyTimeoutMs } : {}),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A request answered before its body is read: what it still sends is dropped, within limits.
    const refuse = (status: number, message: string) => {
      discardBody(req, limits);
      reply(res, status, message);
    };
    if ((req.url ?? '').split('?')[0] !== '/mcp') return refuse(404, 'not found: the endpoint is /mcp');
    if (req.method !== 'POST')
      return refuse(405, 'this endpoint is stateless: only POST requests are served');
    if (ready) await ready;
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const binding = token === undefined ? undefined : live.get(token);
    if (!binding) {
      const reason = (token !== undefined ? denied.get(token) : undefined) ?? whyNotBound(token, revoked);
      options.onRejected?.(reason, token === undefined ? undefined : revoked.get(token));
      return refuse(401, reason);
    }
    const body = await jsonBody(req, res, limits);
    if (!body) return;
    const mcp = stepAgentServer(binding, (report) => {
      if (!live.has(token!)) return 'this token was revoked: its step already reported, or its attempt ended';
      const refusal = options.onReport(binding, report);
      if (refusal === undefined) revoke(token!);
      return refusal;
    });
    await serveOverMcp(req, res, body.value, mcp);
  }

  return {
    handle(req, res) {
      // node:http does not wait for a handler; its failure is answered here (500, or the end of the reply).
      void handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) reply(res, 500, `kairoku-playbook failed: ${(error as Error).message}`);
        else res.end();
      });
    },
    mint(binding) {
      // The same binding gives the same token: minted again (an agent adopted after a restart), it is
      // live again.
      const token = reportToken(key, binding);
      revoked.delete(token);
      denied.delete(token);
      live.set(token, { ...binding });
      return token;
    },
    revoke,
    deny(binding, reason) {
      const token = reportToken(key, binding);
      live.delete(token);
      denied.set(token, reason);
      forgetOldest(denied);
    },
    liveTokens: () => live.size,
  };
}

/**
 * A long-lived app (serve) revokes a token per dispatch for ever: the oldest revoked (or denied) ones
 * are forgotten (a Map keeps insertion order), and a replay of one is refused as unknown instead.
 */
function forgetOldest(tokens: Map<string, unknown>): void {
  if (tokens.size > REVOKED_KEPT) tokens.delete(tokens.keys().next().value!);
}

/** Why a request's token reports for no step: none, revoked, or never minted by this runtime. */
function whyNotBound(token: string | undefined, revoked: ReadonlyMap<string, ReportBinding>): string {
  if (token === undefined)
    return 'no bearer token: a step agent reports with the token its step was started with';
  if (revoked.has(token)) return 'this token was revoked: its step already reported, or its attempt ended';
  return 'unknown token: no step of this runtime reports with it (never minted here, or its attempt ended before the runtime restarted)';
}

/** The request's body as JSON, or undefined once it was refused (too large or slow, not JSON, a forbidden key). */
async function jsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  limits: BodyLimits,
): Promise<{ value: unknown } | undefined> {
  const body = await readBody(req, limits);
  if (!body.ok) {
    reply(res, body.status, body.reason);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    reply(res, 400, 'the request body is not JSON');
    return undefined;
  }
  // Before the SDK's zod, which would drop such a key without a word.
  const forbidden = forbiddenKey(parsed);
  if (forbidden) {
    reply(res, 400, `the request was refused: ${describeForbidden(forbidden)}`);
    return undefined;
  }
  return { value: parsed };
}

/** One stateless MCP exchange: a server and transport of this request alone, closed with its reply. */
async function serveOverMcp(
  req: IncomingMessage,
  res: ServerResponse,
  parsed: unknown,
  mcp: McpServer,
): Promise<void> {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    // The reply is gone, so no one is left to tell of a failure to close this request's server, and
    // nothing outlives it: settled rather than left to reject unhandled.
    void Promise.allSettled([transport.close(), mcp.close()]);
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, parsed);
}

function stepAgentServer(
  binding: ReportBinding,
  report: (report: StepReport) => string | undefined,
): McpServer {
  const what = `step "${binding.step}" of run ${binding.run} (attempt ${binding.attempt})`;
  const server = new McpServer(
    { name: 'kairoku-playbook', version: '1' },
    {
      instructions: `You are the agent of ${what}. When your work is done, call report_step_result once with your outcome, a summary and your outputs, then end your turn.`,
    },
  );
  server.registerTool(
    'report_step_result',
    {
      description:
        `Reports the result of ${what}, then end your turn.` +
        (binding.outcomes ? ` outcome: one of ${binding.outcomes.join(', ')}.` : '') +
        (binding.outputs ? ` outputs: ${binding.outputs.length ? binding.outputs.join(', ') : 'none'}.` : ''),
      inputSchema: {
        outcome: z.string().min(1).describe('One of the outcomes the step declares.'),
        summary: z
          .string()
          .optional()
          .describe('What you did and found, in a few sentences, for the manager.'),
        outputs: z
          .record(z.unknown())
          .optional()
          .describe("The step's typed outputs, by name; they must fit the output types the step declares."),
      },
    },
    (args) => {
      const refusal = report({
        outcome: args.outcome,
        ...(args.summary !== undefined ? { summary: args.summary } : {}),
        ...(args.outputs !== undefined ? { outputs: args.outputs } : {}),
      });
      if (refusal !== undefined)
        return { isError: true, content: [{ type: 'text' as const, text: `refused: ${refusal}` }] };
      return {
        content: [
          {
            type: 'text' as const,
            text: `Recorded ${args.outcome} for ${what}. End your turn now: the manager reads your report and decides what happens next.`,
          },
        ],
      };
    },
  );
  return server;
}

/** A refusal as MCP clients read it: a JSON-RPC error with the reason. */
function reply(res: ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
