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
