import type { IrRole } from '@kairoku-playbook/compiler';
import type { Dispatch, EventKind } from '../../backends/kairoku/protocol.js';
import type { Decision, ToolCall } from '@kairoku-playbook/machine';

import type { ProviderName } from './names.js';

/**
 * One thing a provider's agent did. `raw` is what the provider emitted, written to the dispatch's
 * JSONL log in full (RF-003); `curated`, when there is one, is what the app is shown of it (the
 * runner masks and bounds it before it rides an update).
 */
export interface ProviderEvent {
  raw: Record<string, unknown>;
  curated?: { kind: EventKind; text: string; tool?: string };
}

/** What a provider is given to launch one dispatch's agent. */
export interface LaunchContext {
  dispatch: Dispatch;
  /** the dispatch's fresh worktree: the agent's working directory */
  worktree: string;
  /** the dispatch as its breadcrumb keeps it (without secrets), for agents that read it */
  dispatchFile: string;
  /** the role's policy, as the one policy function takes it (RF-017) */
  role: IrRole;
  /** SIGTERM → SIGKILL grace of the agent's process group */
  graceMs: number;
  /** the one policy function, bound to this dispatch's role and worktree (RF-017) */
  decide(call: ToolCall): Decision;
}

/** How a provider's agent ended. */
export interface ProviderExit {
  /** 0 when the agent ended its turn normally */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** the agent could not start, or its stream broke */
  error?: Error;
  /** why the turn failed, in the provider's words (a result that is an error, a failed turn) */
  reason?: string;
}

/** A launched agent (RF-014): its events, a way to stop it, and how it ended. */
export interface Launched {
  /** every event, in order; ends once the agent's output has ended */
  events: AsyncIterable<ProviderEvent>;
  /**
   * Stops the agent and ends its whole process group (SIGTERM, SIGKILL after the grace): resolves once
   * it is gone. Calling it again returns the same promise (the runner calls it on every exit path).
   */
  interrupt(): Promise<void>;
  exit: Promise<ProviderExit>;
}

/** RF-014: one interface behind which the agents are interchangeable. */
export interface Provider {
  readonly name: ProviderName;
  launch(context: LaunchContext): Launched;
}

/** A push queue read as an async iterable: providers push events as their agent emits them. */
export class EventQueue implements AsyncIterable<ProviderEvent> {
  private readonly items: ProviderEvent[] = [];
  private waiting: ((result: IteratorResult<ProviderEvent>) => void) | undefined;
  private ended = false;

  push(event: ProviderEvent): void {
    if (this.ended) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
    } else this.items.push(event);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<ProviderEvent> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item) return Promise.resolve({ value: item, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (this.waiting = resolve));
      },
    };
  }
}

/** A tool call as one line of text, for curated events. */
export function describeCall(call: ToolCall): string {
  const what = call.path ?? call.command ?? call.server;
  return `${String(call.tool)}${what !== undefined ? ` ${JSON.stringify(what)}` : ''}`;
}

/** The curated event of a policy decision: a tool call, or a denial (RF-017: every denial is an event). */
export function decisionEvent(
  call: ToolCall,
  decision: Decision,
  raw: Record<string, unknown>,
  tool: string = String(call.tool),
): ProviderEvent {
  const said = describeCall(call);
  return decision.decision === 'allow'
    ? { raw, curated: { kind: 'tool-call', text: said, tool } }
    : { raw, curated: { kind: 'denial', text: `${said} denied: ${decision.reason}`, tool } };
}
