// The manager's wake-ups: their own file, so the effects (which carry them) and the run state (which
// holds them while paused) both read them without reading each other.

export type WakeUpKind =
  'reported' | 'gate-decided' | 'lost' | 'timeout' | 'read-only' | 'run-ended' | 'restarted';

/** A message for the manager. Sent at once while the run is running; held while it is paused. */
export interface WakeUp {
  at: string;
  kind: WakeUpKind;
  step?: string;
  attempt?: number;
  outcome?: string;
  text: string;
}
