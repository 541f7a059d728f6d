import { appendFileSync } from 'node:fs';
import { MASK } from '@kairoku-playbook/machine';
import { LIMITS, bound } from '../backends/kairoku/protocol.js';
import type { CuratedEvent, EventKind } from '../backends/kairoku/protocol.js';

/** curated events waiting to be sent, per dispatch; past it the oldest are dropped and counted */
const PENDING_LIMIT = 500;
/** stderr lines curated per dispatch (all of them are in the full log) */
const STDERR_CURATED = 20;

const CURATED: ReadonlySet<string> = new Set<EventKind>([
  'message',
  'tool-call',
  'tool-result',
  'denial',
  'phase',
  'status',
  'codegraph',
]);

/**
 * A dispatch's events, two logs and one truth (RF-003): everything the agent emits goes to a JSONL
 * file on disk in full; a curated subset (the kinds the Floor draws, RF-023), each text masked and
 * cut to the protocol's bound, waits here for the next update.
 */
export class EventLog {
  private pending: CuratedEvent[] = [];
  private dropped = 0;
  private stderrLines = 0;
  private readonly secrets: string[];

  constructor(
    private readonly file: string,
    secrets: readonly string[],
  ) {
    this.secrets = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  }

  /** Logs a raw event in full; curates it when its kind is one the app is shown. */
  record(raw: Record<string, unknown>): void {
    const at = new Date().toISOString();
    this.write({ at, ...raw });
    const curated = curatedOf(raw);
    if (curated) this.curate(curated.kind, curated.text, curated.tool, at);
  }

  /**
   * A provider's event (RF-003): the raw event in full to the log, and what the app is shown of it,
   * if anything, to the pending list.
   */
  provider(
    provider: string,
    raw: Record<string, unknown>,
    curated?: { kind: EventKind; text: string; tool?: string },
  ): void {
    const at = new Date().toISOString();
    this.write({ at, provider, event: raw });
    if (curated) this.curate(curated.kind, curated.text, curated.tool, at);
  }

  /** Queues one curated event for the next update: masked, bounded, stderr lines capped. */
  private curate(kind: EventKind, text: string, tool: string | undefined, at: string): void {
    if (kind === 'stderr' && this.stderrLines++ >= STDERR_CURATED) return;
    const event: CuratedEvent = { at, kind, text: this.clean(text) };
    if (tool !== undefined) event.tool = bound(this.mask(tool), 100);
    this.push(event);
  }

  /** What the runner itself says about the dispatch (a phase change, a denial). */
  say(kind: EventKind, text: string, tool?: string): void {
    this.record(tool === undefined ? { type: kind, text } : { type: kind, text, tool });
  }

  /** Up to one update's worth of curated events, taken off the pending list. */
  take(): CuratedEvent[] {
    const batch: CuratedEvent[] = [];
    if (this.dropped) {
      batch.push({
        at: new Date().toISOString(),
        kind: 'status',
        text: `${this.dropped} curated events were dropped while the app was unreachable (all are in the runner's log)`,
      });
      this.dropped = 0;
    }
    batch.push(...this.pending.splice(0, LIMITS.eventsPerUpdate - batch.length));
    return batch;
  }

  get waiting(): number {
    return this.pending.length + (this.dropped ? 1 : 0);
  }

  private push(event: CuratedEvent): void {
    this.pending.push(event);
    if (this.pending.length > PENDING_LIMIT) {
      this.dropped += this.pending.length - PENDING_LIMIT;
      this.pending.splice(0, this.pending.length - PENDING_LIMIT);
    }
  }

  private clean(text: string): string {
    return bound(this.mask(text), LIMITS.eventText);
  }

  private mask(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(MASK);
      // as it appears inside a JSON string in the full log
      const quoted = JSON.stringify(secret).slice(1, -1);
      if (quoted !== secret && out.includes(quoted)) out = out.split(quoted).join(MASK);
    }
    return out;
  }

  private write(line: Record<string, unknown>): void {
    try {
      // The full log is masked too: a secret never reaches a file (an agent may echo its token).
      appendFileSync(this.file, `${this.mask(JSON.stringify(line))}\n`, { mode: 0o600 });
    } catch {
      // The log is a log, not state: a full disk must not stop the dispatch.
    }
  }
}

/**
 * What the app is shown of an event that names its own kind (`{"type":"message","text":…}`, as the
 * command provider's agents print them), or undefined for a kind it is not shown.
 */
export function curatedOf(
  raw: Record<string, unknown>,
): { kind: EventKind; text: string; tool?: string } | undefined {
  const kind = typeof raw.type === 'string' ? raw.type : '';
  if (kind !== 'stderr' && !CURATED.has(kind)) return undefined;
  const curated: { kind: EventKind; text: string; tool?: string } = {
    kind: kind as EventKind,
    text: describe(raw),
  };
  if (typeof raw.tool === 'string') curated.tool = raw.tool;
  return curated;
}

function describe(raw: Record<string, unknown>): string {
  if (typeof raw.text === 'string') return raw.text;
  const { type: _type, ...rest } = raw;
  return JSON.stringify(rest);
}
