import { HOST_MANAGER } from '../host/run-host.js';
import { findServe } from '../store/serve-discovery.js';
import type { ServeInfo } from '../store/serve-discovery.js';
import type { RunStore } from '../store/run-store.js';
import { readWorkspace } from './workspace.js';
import { ToolError } from './tool-error.js';

/**
 * The MCP server's run-changing tools while a `serve` owns the workspace (docs/serve.md): serve is the
 * only writer of the runs it drives, so a decision on one of them (resume, nudge_step, cancel_run,
 * restart_run) is asked of serve through its HTTP API rather than written under its feet, and
 * start_playbook starts the run there (serve drives it with autopilot; its gates wait for resume or
 * the panel). Without a serve, the tools work on the store as they always have.
 */

/**
 * The serve that drives run `id`: it holds the run's claim, or the run is one serve started (an ended
 * one it let go of, which only serve restarts).
 */
export function serveOwning(store: RunStore, workspace: string, id: string): ServeInfo | undefined {
  let stored;
  try {
    stored = store.load(id);
  } catch {
    return undefined;
  }
  const serve = findServe(store.home, stored?.workspace ?? workspace);
  if (!serve || !stored) return undefined;
  return store.owner(id) === serve.pid || stored.manager === HOST_MANAGER ? serve : undefined;
}

/** The serve of the workspace, when one is up. */
export function serveOf(store: RunStore, workspace: string): ServeInfo | undefined {
  return findServe(store.home, workspace);
}

/** A run-changing tool's call as the serve API's request. */
export function toolServeRequest(
  tool: 'resume' | 'nudge_step' | 'cancel_run' | 'restart_run',
  args: Record<string, unknown>,
): { path: string; body: Record<string, unknown> } {
  const run = encodeURIComponent(String(args.run));
  const step = encodeURIComponent(String(args.step ?? ''));
  switch (tool) {
    case 'resume':
      return {
        path: `/api/v1/runs/${run}/gates/${step}`,
        body: { choice: args.choice, ...(args.comment !== undefined ? { comment: args.comment } : {}) },
      };
    case 'nudge_step':
      return { path: `/api/v1/runs/${run}/steps/${step}/nudge`, body: { message: args.text } };
    case 'cancel_run':
      return {
        path: `/api/v1/runs/${run}/cancel`,
        body: args.reason !== undefined ? { reason: args.reason } : {},
      };
    case 'restart_run':
      return { path: `/api/v1/runs/${run}/restart`, body: { step: args.step } };
  }
}

/** start_playbook's playbook (an id or a file) as serve's API names it: its file, relative to the workspace. */
export function servePlaybook(workspace: string, playbook: string): string | undefined {
  const { playbooks } = readWorkspace(workspace);
  return (playbooks.find((p) => p.id === playbook) ?? playbooks.find((p) => p.file === playbook))?.file;
}

/**
 * POST to serve; the answer's body. A refusal (4xx) becomes the tool's refusal with serve's code and
 * sentence; serve not answering is said as such.
 */
export async function askServe(
  serve: ServeInfo,
  path: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${serve.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw new ToolError(
      `kairoku-playbook serve (process ${serve.pid}) drives this workspace's runs but did not answer at ${serve.url}: ${(error as Error).message}`,
    );
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return answer;
  const refusal = answer.refusal as { code?: string; message?: string } | undefined;
  throw new ToolError(
    `${refusal?.message ?? `serve answered ${response.status}`} (asked of kairoku-playbook serve at ${serve.url})`,
    refusal?.code,
  );
}
