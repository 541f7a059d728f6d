/**
 * The workspace's playbooks, compact: a search field, then one row each (title, path, Start), its
 * problems one click away (a disclosure), and why it cannot start when it cannot. The start form opens
 * in the main area.
 */
import { signal } from '@preact/signals';
import type { PlaybookCard } from '@kairoku-playbook/protocol';
import { playbooks, startingPlaybook } from './store.js';

const search = signal('');

export const cardTitleId = (id: string) => `card-${id.replace(/[^A-Za-z0-9]/g, '-')}`;

function Problems({ card }: { card: PlaybookCard }) {
  const count = card.diagnostics.length;
  if (count === 0) return null;
  const errors = card.diagnostics.filter((d) => d.severity === 'error').length;
  return (
    <details class="problems" open={false}>
      <summary>
        {count} problem{count === 1 ? '' : 's'}
        {errors > 0 ? ` (${errors} error${errors === 1 ? '' : 's'})` : ''}
      </summary>
      <ul class="diagnostics" aria-label={`Problems in ${card.title}`}>
        {card.diagnostics.map((d, i) => (
          <li key={i} class={`diagnostic ${d.severity}`}>
            <span class="severity">{d.severity}</span> {d.code} at {d.line}:{d.column}: {d.message}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Card({ card }: { card: PlaybookCard }) {
  const errors = card.diagnostics.filter((d) => d.severity === 'error').length;
  const titleId = cardTitleId(card.id);
  const starting = startingPlaybook.value === card.id;
  return (
    <li
      class={`card${card.canStart ? '' : ' has-errors'}${starting ? ' starting' : ''}`}
      aria-labelledby={titleId}
    >
      <div class="card-text">
        <h3 id={titleId} title={card.description}>
          {card.title}
        </h3>
        <p class="path">{card.id}</p>
      </div>
      <button
        type="button"
        class="primary"
        aria-label={`Start ${card.title}`}
        aria-describedby={card.canStart ? undefined : `${titleId}-why`}
        aria-expanded={starting}
        disabled={!card.canStart}
        onClick={() => (startingPlaybook.value = card.id)}
      >
        Start
      </button>
      {!card.canStart && (
        <p class="why" id={`${titleId}-why`}>
          Cannot start: {card.why ?? `${errors} error${errors === 1 ? '' : 's'} to fix first.`}
        </p>
      )}
      <Problems card={card} />
    </li>
  );
}

const matches = (card: PlaybookCard, words: string[]) => {
  const text = `${card.title} ${card.id} ${card.description ?? ''}`.toLowerCase();
  return words.every((word) => text.includes(word));
};

export function PlaybookList() {
  const cards = playbooks.value;
  const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = cards?.filter((card) => matches(card, words)) ?? [];
  return (
    <section aria-labelledby="playbooks-title" class="playbooks">
      <h2 id="playbooks-title">Playbooks</h2>
      {cards === null ? (
        <ul class="cards skeleton" aria-busy="true" aria-label="Loading the playbooks">
          <li class="card" />
          <li class="card" />
        </ul>
      ) : cards.length === 0 ? (
        <p>No playbooks in this workspace.</p>
      ) : (
        <>
          <input
            type="search"
            class="search"
            aria-label="Search playbooks"
            placeholder="Search playbooks"
            value={search.value}
            onInput={(e) => (search.value = (e.currentTarget as HTMLInputElement).value)}
          />
          {shown.length === 0 && <p>No playbook matches.</p>}
          <ul class="cards">
            {shown.map((card) => (
              <Card key={card.id} card={card} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
