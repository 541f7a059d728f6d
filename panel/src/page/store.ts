/**
 * The page's state as signals: what the server said last, and what the person has open. Every change
 * from the server arrives as an event (SSE `run`, `runs-removed`, `playbooks`, `reset`), so the state
 * is the server's, never guessed.
 */
import { batch, computed, signal } from '@preact/signals';
import type {
  PlaybookCard,
  RunDetail,
  RunEventData,
  RunListItem,
  RunsRemovedEventData,
} from '@kairoku-playbook/protocol';
import { RefusedError, api } from './api.js';
import { transport } from './transport.js';
import type { LiveEvents } from './transport.js';

export const playbooks = signal<PlaybookCard[] | null>(null);
export const runs = signal<RunListItem[]>([]);
/** the offset of the next page of runs the server has, null when the list has them all ("More runs") */
export const runsNext = signal<number | null>(null);
/** false until the first run list has come (the list shows a skeleton till then) */
export const runsLoaded = signal(false);
export const showArchived = signal(false);
export const activeRunId = signal<string | null>(null);
export const detail = signal<RunDetail | null>(null);
/** the step whose detail sheet is open, and which attempt (null: the latest) */
export const openStep = signal<{ name: string; attempt: number | null } | null>(null);
/** the card whose start form is open */
export const startingPlaybook = signal<string | null>(null);
/** the last thing the server refused, or could not be reached for, shown in a live region */
export const notice = signal<{ kind: 'error' | 'info'; text: string } | null>(null);
export const connected = signal(false);

/**
 * The run whose open gate takes the focus when it shows (the person started it, or the page opened on
 * it because it waits), and whether its heading takes it until then. Opening another run disarms it.
 */
export const attention = signal<{ run: string; heading: boolean } | null>(null);

const waitsFirst = (a: RunListItem, b: RunListItem) => Number(b.waiting > 0) - Number(a.waiting > 0);

/**
 * The runs listed, those waiting for a decision first (the server's order, newest first, otherwise). The
 * open run stays listed (and selected) when it is archived: archiving the run in view keeps it in view
 * until another run is opened, rather than making the selection vanish under the person.
 */
export const visibleRuns = computed(() =>
  runs.value.filter((r) => showArchived.value || !r.archived || r.id === activeRunId.value).sort(waitsFirst),
);

export type StatusFilter = 'all' | 'waiting' | 'running' | 'paused' | 'completed' | 'failed' | 'canceled';
export const statusFilter = signal<StatusFilter>('all');

const passes = (run: RunListItem, filter: StatusFilter) =>
  filter === 'all' ||
  (filter === 'waiting'
    ? run.waiting > 0
    : filter === 'canceled'
      ? run.status === 'canceled' || (run.status as string) === 'cancelled'
      : run.status === filter);

/** The runs the list shows: the visible ones that pass the status filter. */
export const shownRuns = computed(() => visibleRuns.value.filter((r) => passes(r, statusFilter.value)));

/** How many decisions wait in all (gates and permission requests of the runs not archived). */
export const waitingCount = computed(() =>
  runs.value.reduce((sum, r) => sum + (r.archived ? 0 : r.waiting), 0),
);

export function say(kind: 'error' | 'info', text: string): void {
  notice.value = { kind, text };
}

export function refusalText(error: unknown): string {
  if (error instanceof RefusedError) return error.refusal.message;
  return error instanceof Error ? `Could not reach the server: ${error.message}` : String(error);
}

export async function loadPlaybooks(): Promise<void> {
  try {
    playbooks.value = (await api.playbooks()).playbooks;
  } catch (error) {
    say('error', refusalText(error));
  }
}

/** The first page of runs (the archived ones too when shown, of the status filter's status). */
export async function loadRuns(): Promise<void> {
  try {
    const page = await api.runs({ archived: showArchived.value, status: statusFilter.value, offset: 0 });
    batch(() => {
      runs.value = keepOpenRun(page.runs);
      runsNext.value = page.next ?? null;
      runsLoaded.value = true;
    });
  } catch (error) {
    say('error', refusalText(error));
  }
}

/**
 * A new first page keeps the open run's entry when the server leaves it out because it is archived (it
 * stays listed while open, `visibleRuns`): in its place among the others by when it started.
 */
function keepOpenRun(page: RunListItem[]): RunListItem[] {
  const open = runs.value.find((r) => r.id === activeRunId.value && r.archived);
  if (!open || page.some((r) => r.id === open.id)) return page;
  const at = page.findIndex((r) => r.startedAt < open.startedAt);
  return at < 0 ? [...page, open] : [...page.slice(0, at), open, ...page.slice(at)];
}

/** The next page of runs, after those listed ("More runs"). */
export async function loadMoreRuns(): Promise<void> {
  const offset = runsNext.value;
  if (offset === null) return;
  try {
    const page = await api.runs({ archived: showArchived.value, status: statusFilter.value, offset });
    const listed = new Set(runs.value.map((r) => r.id));
    batch(() => {
      runs.value = [...runs.value, ...page.runs.filter((r) => !listed.has(r.id))];
      runsNext.value = page.next ?? null;
    });
  } catch (error) {
    say('error', refusalText(error));
  }
}

/** Fetches the open run (which marks a completed run seen) unless what is shown is as new already. */
async function loadDetail(id: string, atLeast = 0, reveal = false): Promise<void> {
  if (detail.value?.run.id === id && detail.value.version >= atLeast && atLeast > 0) return;
  try {
    const fetched = await api.run(id);
    if (activeRunId.value !== id) return;
    showDetail(fetched);
    // An archived run opened by its address: its tab is among the archived ones.
    if (reveal && fetched.run.archived && !showArchived.value) {
      showArchived.value = true;
      await loadRuns();
    }
  } catch (error) {
    say('error', refusalText(error));
  }
}

/** An answer that carries the run (every action's) replaces what is shown, and its tab. */
function showDetail(next: RunDetail): void {
  batch(() => {
    if (
      activeRunId.value === next.run.id &&
      (!detail.value || detail.value.version <= next.version || detail.value.run.id !== next.run.id)
    )
      detail.value = next;
    const item: RunListItem = { ...next.run, seen: activeRunId.value === next.run.id ? true : next.run.seen };
    upsertRun(item);
  });
}

function upsertRun(item: RunListItem): void {
  const list = runs.value;
  const at = list.findIndex((r) => r.id === item.id);
  const clean: RunListItem = {
    id: item.id,
    playbook: item.playbook,
    title: item.title,
    status: item.status,
    startedAt: item.startedAt,
    endedAt: item.endedAt,
    archived: item.archived,
    seen: item.seen,
    waiting: item.waiting,
  };
  if (at < 0) runs.value = [clean, ...list];
  else runs.value = list.map((r, i) => (i === at ? clean : r));
}

/** Opens a run; `reveal` (an address opened it): an archived one shows the archived runs with it. */
export function openRun(id: string, reveal = false): void {
  batch(() => {
    if (activeRunId.value !== id) openStep.value = null;
    startingPlaybook.value = null; // the main area shows the run, not a start form
    if (attention.value && attention.value.run !== id) attention.value = null;
    activeRunId.value = id;
    const item = runs.value.find((r) => r.id === id);
    if (item && !item.seen) upsertRun({ ...item, seen: true });
  });
  void loadDetail(id, 0, reveal); // (it catches its own failure and shows it in the status line)
}

function onRunEvent(event: RunEventData): void {
  const { version, ...item } = event;
  upsertRun(activeRunId.value === item.id ? { ...item, seen: true } : item);
  if (activeRunId.value === item.id) void loadDetail(item.id, version); // (it catches its own failure and shows it in the status line)
}

/** Live updates: the transport reconnects by itself and catches up (Last-Event-ID), so nothing is missed. */
export function connectEvents(): LiveEvents {
  const source = transport().events();
  source.addEventListener('open', () => {
    connected.value = true;
  });
  source.addEventListener('error', () => {
    connected.value = false;
  });
  source.addEventListener('run', (event) => {
    try {
      onRunEvent(JSON.parse((event as MessageEvent<string>).data) as RunEventData);
    } catch {
      void loadRuns(); // (it catches its own failure and shows it in the status line)
    }
  });
  source.addEventListener('runs-removed', (event) => {
    try {
      const { ids } = JSON.parse((event as MessageEvent<string>).data) as RunsRemovedEventData;
      const gone = new Set(ids);
      runs.value = runs.value.filter((r) => !gone.has(r.id));
    } catch {
      void loadRuns(); // (it catches its own failure and shows it in the status line)
    }
  });
  source.addEventListener('playbooks', () => void loadPlaybooks()); // (it catches its own failure and shows it in the status line)
  source.addEventListener('reset', () => {
    // Each of these catches its own failure and shows it in the status line.
    void Promise.all([
      loadPlaybooks(),
      loadRuns(),
      activeRunId.value ? loadDetail(activeRunId.value) : undefined,
    ]);
  });
  return source;
}

/** An event handler that performs `act(action, done)`: act shows its own failure, so nothing waits on it. */
export function actOn(action: () => Promise<RunDetail>, done?: string): () => void {
  // act never rejects: a failure is shown in the status line
  return () => void act(action, done);
}

/** Runs an action that answers with the run; a refusal is said in the live region. Whether it went through. */
export async function act(action: () => Promise<RunDetail>, done?: string): Promise<boolean> {
  try {
    showDetail(await action());
    if (done) say('info', done);
    return true;
  } catch (error) {
    say('error', refusalText(error));
    return false;
  }
}
