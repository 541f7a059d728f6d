/** The Playbooks panel: cards to start playbooks, a tab per run, the open run. */
import type { PlaybookCard, RunListItem } from '@kairoku-playbook/protocol';
import { RunView } from './run-view.js';
import { StartForm } from './start-form.js';
import { runState } from './status.js';
import {
  activeRunId,
  connected,
  detail,
  loadRuns,
  notice,
  openRun,
  playbooks,
  showArchived,
  startingPlaybook,
  visibleRuns,
} from './store.js';

function Card({ card }: { card: PlaybookCard }) {
  const starting = startingPlaybook.value === card.id;
  const errors = card.diagnostics.filter((d) => d.severity === 'error').length;
  const titleId = `card-${card.id.replace(/[^A-Za-z0-9]/g, '-')}`;
  return (
    <li class={`card${card.canStart ? '' : ' has-errors'}`} aria-labelledby={titleId}>
      <h3 id={titleId}>{card.title}</h3>
      <p class="path">{card.id}</p>
      {card.description && <p class="description">{card.description}</p>}
      {card.diagnostics.length > 0 && (
        <ul class="diagnostics" aria-label={`Problems in ${card.title}`}>
          {card.diagnostics.map((d, i) => (
            <li key={i} class={`diagnostic ${d.severity}`}>
              <span class="severity">{d.severity}</span> {d.code} at {d.line}:{d.column}: {d.message}
            </li>
          ))}
        </ul>
      )}
      {!card.canStart && (
        <p class="why" id={`${titleId}-why`}>
          Cannot start: {card.why ?? `${errors} error${errors === 1 ? '' : 's'} to fix first.`}
        </p>
      )}
      {!starting && (
        <button
          type="button"
          class="primary"
          aria-label={`Start ${card.title}`}
          aria-describedby={card.canStart ? undefined : `${titleId}-why`}
          disabled={!card.canStart}
          onClick={() => (startingPlaybook.value = card.id)}
        >
          Start
        </button>
      )}
      {starting && <StartForm card={card} />}
    </li>
  );
}

function Tab({ run, index, list }: { run: RunListItem; index: number; list: RunListItem[] }) {
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
        if (e.key === 'ArrowRight' || e.key === 'ArrowDown') focusTab(index + 1);
        else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') focusTab(index - 1);
        else if (e.key === 'Home') focusTab(0);
        else if (e.key === 'End') focusTab(list.length - 1);
        else return;
        e.preventDefault();
      }}
    >
      <span
        class={`dot ${state}${unseen ? ' unseen' : ''}${wrapping ? ' pulsing' : ''}`}
        aria-hidden="true"
      />
      <span class="tab-title">{run.title}</span>
      <span class="tab-status">
        {wrapping ? 'wrapping up' : run.status}
        {run.waiting > 0 ? ` · ${run.waiting} waiting` : ''}
        {run.archived ? ' · archived' : ''}
      </span>
    </button>
  );
}

export function App() {
  const cards = playbooks.value;
  const list = visibleRuns.value;
  const open = detail.value;
  const message = notice.value;
  return (
    <main>
      <header class="top">
        <h1>Playbooks</h1>
        <span class={`connection ${connected.value ? 'on' : 'off'}`}>
          {connected.value ? 'live' : 'connecting…'}
        </span>
      </header>
      <div class={`notice ${message?.kind ?? ''}`} role="status" aria-live="polite">
        {message?.text ?? ''}
      </div>
      <section aria-labelledby="playbooks-title">
        <h2 id="playbooks-title">Playbooks</h2>
        {cards === null ? (
          <p>Loading…</p>
        ) : cards.length === 0 ? (
          <p>No playbooks in this workspace.</p>
        ) : (
          <ul class="cards">
            {cards.map((card) => (
              <Card key={card.id} card={card} />
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="runs-title" class="runs">
        <div class="runs-header">
          <h2 id="runs-title">Runs</h2>
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
        {list.length === 0 ? (
          <p>No runs yet: start a playbook above.</p>
        ) : (
          <div class="tabs" role="tablist" aria-label="Runs">
            {list.map((run, index) => (
              <Tab key={run.id} run={run} index={index} list={list} />
            ))}
          </div>
        )}
        {/* an archived run's tab goes when archived runs are hidden, and its panel with it */}
        {list.some((r) => r.id === activeRunId.value) && (
          <div id="run-panel" role="tabpanel" aria-labelledby={`tab-${activeRunId.value}`}>
            {open && open.run.id === activeRunId.value ? <RunView detail={open} /> : <p>Loading the run…</p>}
          </div>
        )}
      </section>
    </main>
  );
}
