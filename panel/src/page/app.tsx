/**
 * The Playbooks panel: the run list (the page's navigation) and the playbooks beside the main area, which
 * shows the selected run or a playbook's start form. Narrow (a phone, VS Code's side bar), the list and
 * the main area are two views: opening a run shows it, "All runs" goes back.
 */
import { RunList } from './run-list.js';
import { PlaybookList } from './playbook-list.js';
import { RunView } from './run-view.js';
import { navigate } from './router.js';
import { StartForm } from './start-form.js';
import { activeRunId, connected, detail, notice, playbooks, startingPlaybook } from './store.js';

function Main() {
  const starting = startingPlaybook.value;
  const card = starting ? playbooks.value?.find((c) => c.id === starting) : undefined;
  if (card) return <StartForm key={card.id} card={card} />;
  const id = activeRunId.value;
  const open = detail.value;
  if (!id) return <p class="empty">Choose a run, or start a playbook.</p>;
  if (open && open.run.id === id) return <RunView detail={open} />;
  return (
    <div class="skeleton run-skeleton" aria-busy="true" aria-label="Loading the run">
      <div class="bar wide" />
      <div class="bar" />
      <div class="bar" />
    </div>
  );
}

export function App() {
  const message = notice.value;
  const showingMain = Boolean(startingPlaybook.value || activeRunId.value);
  return (
    <div class={`layout${showingMain ? ' showing-main' : ''}`}>
      <header class="top">
        <h1>Playbooks</h1>
        <span class={`connection ${connected.value ? 'on' : 'off'}`}>
          {connected.value ? 'live' : 'connecting…'}
        </span>
        <div class={`notice ${message?.kind ?? ''}`} role="status" aria-live="polite">
          {message?.text ?? ''}
        </div>
      </header>
      <nav class="side" aria-label="Runs and playbooks">
        <RunList />
        <PlaybookList />
      </nav>
      <main class="main" id="run-panel" aria-label={startingPlaybook.value ? 'Start a run' : 'The run'}>
        <button
          type="button"
          class="back link"
          onClick={() => {
            startingPlaybook.value = null;
            navigate({ run: null, step: null });
          }}
        >
          ← All runs
        </button>
        <Main />
      </main>
    </div>
  );
}
