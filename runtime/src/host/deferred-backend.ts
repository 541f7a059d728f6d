import type { Backend, BackendContext, BackendEffect } from '../driver/backend.js';

/**
 * A backend that is still connecting (a Paseo daemon answers later) as a host can use it at once:
 * `RunHost.backendFor` is synchronous, so the effects it is handed before the connection is up wait
 * here, in order, and are performed once it is. When the connection fails, every agent and check it
 * was asked to start is lost (the lost-agent rule takes over: a retry within `retries`, else the
 * step is lost), with the reason said; nothing else it was asked matters without agents.
 */
export class DeferredBackend implements Backend {
  private inner: Backend | undefined;
  private failure: string | undefined;
  private pending: { effect: BackendEffect; context: BackendContext }[] = [];
  private closed = false;
  private readonly ready: Promise<void>;

  constructor(
    readonly name: string,
    connect: () => Promise<Backend>,
  ) {
    this.ready = connect().then(
      (backend) => {
        if (this.closed) {
          // Closed while connecting: nothing will watch what it would start.
          void backend.close?.();
          return;
        }
        this.inner = backend;
        for (const { effect, context } of this.pending.splice(0)) backend.perform(effect, context);
      },
      (error: unknown) => {
        this.failure = (error as Error).message;
        for (const { effect, context } of this.pending.splice(0)) this.lose(effect, context);
      },
    );
  }

  perform(effect: BackendEffect, context: BackendContext): void {
    if (this.closed) return;
    if (this.inner) this.inner.perform(effect, context);
    else if (this.failure !== undefined) this.lose(effect, context);
    else this.pending.push({ effect, context });
  }

  agentExists(agent: string | undefined): boolean {
    return this.inner?.agentExists(agent) ?? false;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pending = [];
    await this.ready;
    await this.inner?.close?.();
  }

  private lose(effect: BackendEffect, context: BackendContext): void {
    if (effect.type !== 'start-agent' && effect.type !== 'start-check') return;
    context.emit({
      type: 'agent-lost',
      step: effect.step,
      attempt: effect.attempt,
      reason: `the ${this.name} backend could not be reached: ${this.failure ?? 'unknown'}`,
    });
  }
}
