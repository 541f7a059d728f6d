/**
 * The run list, the page's navigation: one entry per run (status icon and text, title, short id, when it
 * started, how long it ran, how many decisions wait), those waiting first; a status filter; archived
 * runs behind a toggle. A vertical tab list: the arrow keys move between runs, the selected run is the
 * main area.
 */
import type { RunListItem } from '@kairoku-playbook/protocol';
import { replaceAddress } from './router.js';
import { runIcon, runLabel, runState } from './status.js';
import {
  activeRunId,
  detail,
  loadMoreRuns,
  loadRuns,
  openRun,
  runsNext,
  runsLoaded,
  showArchived,
  statusFilter,
  shownRuns,
  visibleRuns,
} from './store.js';
import type { StatusFilter } from './store.js';
import { absolute, ago, coarseClock, duration, elapsed, nowFor } from './time.js';

/** A run's id, short: the id itself when short (serve's are `pr-4e0a0c`), else its last 8 characters. */
export const shortId = (id: string) => (id.length <= 12 ? id : `…${id.slice(-8)}`);

function RunTimes({ run }: { run: RunListItem }) {
  // only a running entry under an hour old redraws every second; the others twice a minute at most
  const now = run.endedAt ? Date.now() : nowFor(run.startedAt);
  const took = elapsed(run.startedAt, run.endedAt, now);
  return (
    <span class="tab-meta">
      <span class="short-id">{shortId(run.id)}</span> ·{' '}
      <time dateTime={run.startedAt} title={absolute(run.startedAt)}>
        started {ago(run.startedAt, coarseClock.value)}
      </time>
      {took !== null && <span class="took"> · {duration(took)}</span>}
    </span>
  );
}

function RunEntry({ run, index, list }: { run: RunListItem; index: number; list: RunListItem[] }) {
  const active = activeRunId.value === run.id;
  const state = runState(run.status, run.waiting);
  const unseen = run.status === 'completed' && !run.seen;
  const wrapping =
    active &&
    detail.value?.run.id === run.id &&
    run.status !== 'running' &&
    detail.value.after.some((a) => a.status === 'running');
  const focusTab = (to: number) => {
    const target = list[(to + list.length) % list.length];
    if (!target) return;
    // Back returns to the run before the arrow keys, not through each one passed
    if (target.id !== activeRunId.value) replaceAddress();
    openRun(target.id);
    requestAnimationFrame(() => document.getElementById(`tab-${target.id}`)?.focus());
  };
  return (
    <button
      type="button"
      role="tab"
      id={`tab-${run.id}`}
      class={`tab ${state}${unseen ? ' unseen' : ''}${run.archived ? ' archived' : ''}`}
      aria-selected={active}
      aria-controls="run-panel"
      tabIndex={active || (!list.some((r) => r.id === activeRunId.value) && index === 0) ? 0 : -1}
      onClick={() => openRun(run.id)}
      onKeyDown={(e) => {
        if (e.key === 'ArrowDown' || e.key === 'ArrowRight') focusTab(index + 1);
        else if (e.key === 'ArrowUp' || e.key === 'ArrowLeft') focusTab(index - 1);
        else if (e.key === 'Home') focusTab(0);
        else if (e.key === 'End') focusTab(list.length - 1);
        else return;
        e.preventDefault();
      }}
    >
      <span class={`dot ${state}${unseen ? ' unseen' : ''}${wrapping ? ' pulsing' : ''}`} aria-hidden="true">
        {runIcon(run.status, run.waiting)}
      </span>
      <span class="tab-title">{run.title}</span>
      <span class="tab-status">
        {wrapping ? 'wrapping up' : runLabel(run.status, unseen)}
        {run.waiting > 0 ? ` · ${run.waiting} waiting` : ''}
        {run.archived ? ' · archived' : ''}
      </span>
      <RunTimes run={run} />
    </button>
  );
}

const FILTERS: [StatusFilter, string][] = [
  ['all', 'All'],
  ['waiting', 'Waiting for you'],
  ['running', 'Running'],
  ['paused', 'Paused'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['canceled', 'Canceled'],
];

export function RunList() {
  const list = shownRuns.value;
  const any = visibleRuns.value.length > 0 || statusFilter.value !== 'all';
  return (
    <section aria-labelledby="runs-title" class="runs">
      <div class="runs-header">
        <h2 id="runs-title">Runs</h2>
        <label class="filter">
          Status{' '}
          <select
            value={statusFilter.value}
            onChange={(e) => {
              statusFilter.value = (e.currentTarget as HTMLSelectElement).value as StatusFilter;
              void loadRuns(); // (the server filters; it catches its own failure)
            }}
          >
            {FILTERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="toggle">
          <input
            type="checkbox"
            checked={showArchived.value}
            onChange={(e) => {
              showArchived.value = (e.currentTarget as HTMLInputElement).checked;
              void loadRuns(); // (it catches its own failure and shows it in the status line)
            }}
          />{' '}
          Show archived runs
        </label>
      </div>
      {!runsLoaded.value ? (
        <div class="skeleton" aria-busy="true" aria-label="Loading the runs">
          <div class="bar wide" />
          <div class="bar" />
        </div>
      ) : list.length === 0 ? (
        <p class="empty">{any ? 'No run has that status.' : 'No runs yet: start a playbook below.'}</p>
      ) : (
        <div class="tabs" role="tablist" aria-label="Runs" aria-orientation="vertical">
          {list.map((run, index) => (
            <RunEntry key={run.id} run={run} index={index} list={list} />
          ))}
        </div>
      )}
      {runsLoaded.value && runsNext.value !== null && (
        // (loadMoreRuns catches its own failure and shows it in the status line)
        <button type="button" class="more-runs" onClick={() => void loadMoreRuns()}>
          More runs
        </button>
      )}
    </section>
  );
}
