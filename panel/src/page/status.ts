/** How a step's or a run's status shows: one of a few states the styles colour. */
export type Shown = 'running' | 'completed' | 'failed' | 'waiting' | 'unreached' | 'paused';

export function stepState(status: string | undefined): Shown {
  switch (status) {
    case 'running':
    case 'ready':
    case 'reported':
      return 'running';
    case 'completed':
      return 'completed';
    case 'failed':
    case 'lost':
      return 'failed';
    case 'waiting':
      return 'waiting';
    default:
      return 'unreached';
  }
}

export function runState(status: string, waiting: number): Shown {
  if (status === 'running') return waiting > 0 ? 'waiting' : 'running';
  if (status === 'paused') return 'paused';
  if (status === 'completed') return 'completed';
  if (status === 'failed') return 'failed';
  return 'unreached';
}

export const runHasEnded = (status: string) => status !== 'running' && status !== 'paused';

/** A run's status as a symbol beside its text (the text says it too: never the colour alone). */
export function runIcon(status: string, waiting: number): string {
  if (waiting > 0 && (status === 'running' || status === 'paused')) return '!';
  switch (status) {
    case 'running':
      return '▶';
    case 'paused':
      return '❚❚';
    case 'completed':
      return '✓';
    case 'failed':
      return '✕';
    default:
      return '⊘'; // canceled
  }
}

/** A run's status in words; `canceled` whichever way the server spells it. */
export function runLabel(status: string, unseen = false): string {
  if (status === 'cancelled' || status === 'canceled') return 'canceled';
  if (status === 'completed' && unseen) return 'completed · new';
  return status;
}
