/**
 * The worst case of a run, said in the start form above Start (issue 26): the most agent turns (each one
 * paid for), the most decisions a person can be asked for, and how long the timeouts let a run last.
 * serve works it out once per version of the playbook (`GET /api/v1/bounds`); until then the line says so.
 */
import { useEffect, useState } from 'preact/hooks';
import type { BoundsAnswer, PlaybookCard } from '@kairoku-playbook/protocol';
import { api } from './api.js';
import { boundText } from '../layout/bound-text.js';

type Shown = { kind: 'working' } | { kind: 'failed'; why: string } | { kind: 'answer'; answer: BoundsAnswer };

export function RunBound({ card }: { card: PlaybookCard }) {
  const [shown, setShown] = useState<Shown>({ kind: 'working' });
  useEffect(() => {
    let live = true;
    setShown({ kind: 'working' });
    api.bounds(card.id).then(
      (answer) => live && setShown({ kind: 'answer', answer }),
      (error: unknown) => live && setShown({ kind: 'failed', why: (error as Error).message }),
    );
    return () => {
      live = false;
    };
  }, [card.id]);
  const text =
    shown.kind === 'working'
      ? 'Working out the worst case of a run…'
      : shown.kind === 'failed'
        ? `The worst case of a run could not be worked out: ${shown.why}`
        : shown.answer.bounds
          ? boundText(shown.answer.bounds)
          : `No worst case: ${shown.answer.why ?? 'none is known'}.`;
  return (
    <p class={`run-bound ${shown.kind}`} aria-live="polite">
      <strong>Worst case</strong> {text}
    </p>
  );
}
