import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { describeForbidden, forbiddenKey } from '../core/schemas.js';
import { resolveBindAddress } from './bind-address.js';
import { LISTENER_OPTIONS, discardBody, readBody } from './http-body.js';

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
  /** 0 (the default) picks a free port */
  port?: number;
  /** a request body must arrive within this (default 30 s) */
  bodyTimeoutMs?: number;
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
  /** every token minted and not yet revoked (nothing should be left when a run ends) */
  liveTokens(): number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
/** revoked tokens remembered, to say why a replay is refused */
const REVOKED_KEPT = 10_000;

/**
 * The step agents' MCP endpoint: one tool, `report_step_result`, over Streamable HTTP, where the
 * bearer token names the run, step and attempt (a per-dispatch credential, RF-008). A token is
 * revoked once its report is accepted, so a replay is refused; a refused report (outputs that do not
 * fit, an undeclared outcome) leaves it valid, so the agent can correct itself. Tokens live in this
 * process's memory only: after a restart, agents of the old process can no longer report, and the
 * lost-agent rule takes over.
 */
export async function startReportEndpoint(options: ReportEndpointOptions): Promise<ReportEndpoint> {
  const host = await resolveBindAddress(options.host ?? '127.0.0.1', {
    what: 'the report endpoint',
  });
  const service = reportService(options);
  const server: Server = createServer(LISTENER_OPTIONS, (req, res) => service.handle(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/mcp`,
    mint: service.mint,
    revoke: service.revoke,
    liveTokens: service.liveTokens,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The report endpoint without a listener of its own: what serves `POST /mcp`, and its tokens. */
export interface ReportService {
  /** answers one request to `/mcp` (any other path is 404) */
  handle(req: IncomingMessage, res: ServerResponse): void;
  mint(binding: ReportBinding): string;
  revoke(token: string): void;
  liveTokens(): number;
}

/**
 * The report endpoint's requests and tokens, for a listener that serves it beside other routes (the
 * Kairoku app serves it on its own TLS listener, so an agent on a runner's machine reaches it).
 */
export function reportService(options: Omit<ReportEndpointOptions, 'host' | 'port'>): ReportService {
  const live = new Map<string, ReportBinding>();
  const revoked = new Map<string, ReportBinding>();
  const revoke = (token: string) => {
    const binding = live.get(token);
    if (!binding || !live.delete(token)) return;
    revoked.set(token, binding);
    // A long-lived app (serve) revokes a token per dispatch for ever: the oldest revoked ones are
    // forgotten (a Map keeps insertion order), and a replay of one is refused as unknown instead.
    if (revoked.size > REVOKED_KEPT) revoked.delete(revoked.keys().next().value!);
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
    const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const binding = token === undefined ? undefined : live.get(token);
    if (!binding) {
      const reason =
        token === undefined
          ? 'no bearer token: a step agent reports with the token its step was started with'
          : revoked.has(token)
            ? 'this token was revoked: its step already reported, or its attempt ended'
            : 'unknown token: it was not minted by this run (a restarted runtime does not know the tokens of the one before)';
      options.onRejected?.(reason, token === undefined ? undefined : revoked.get(token));
      return refuse(401, reason);
    }
    const body = await readBody(req, limits);
    if (!body.ok) return reply(res, body.status, body.reason);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.text);
    } catch {
      return reply(res, 400, 'the request body is not JSON');
    }
    // Before the SDK's zod, which would drop such a key without a word.
    const forbidden = forbiddenKey(parsed);
    if (forbidden) return reply(res, 400, `the request was refused: ${describeForbidden(forbidden)}`);
    const mcp = stepAgentServer(binding, (report) => {
      if (!live.has(token!)) return 'this token was revoked: its step already reported, or its attempt ended';
      const refusal = options.onReport(binding, report);
      if (refusal === undefined) revoke(token!);
      return refusal;
    });
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

  return {
    handle(req, res) {
      // node:http does not wait for a handler; its failure is answered here (500, or the end of the reply).
      void handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) reply(res, 500, `kairoku-playbook failed: ${(error as Error).message}`);
        else res.end();
      });
    },
    mint(binding) {
      const token = randomBytes(24).toString('base64url');
      live.set(token, { ...binding });
      return token;
    },
    revoke,
    liveTokens: () => live.size,
  };
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
