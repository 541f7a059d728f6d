/** Refusals of the transition function: their stable codes, and the sentence each carries. */

/**
 * Why an event was refused, for programs (`code`: stable, kebab-case, never reworded) and for people
 * (`message`: one sentence that says what is wrong and what to do). Callers branch on the code, never
 * on the message, so the sentences can improve without breaking the MCP server or the panel.
 */
export interface TransitionRefusal {
  code: RefusalCode;
  message: string;
}

/** Every code a refusal of the transition function can carry (docs/serve.md lists them). */
export const REFUSAL_CODES = [
  'unknown-event',
  'unknown-step',
  'unknown-after-task',
  'unknown-outcome',
  'unknown-choice',
  'already-started',
  'not-started',
  'run-paused',
  'run-ended',
  'run-not-ended',
  'run-not-running',
  'run-not-paused',
  'not-ready',
  'already-running',
  'is-a-gate',
  'not-a-gate',
  'is-an-after-task',
  'already-reported',
  'not-running',
  'wrong-attempt',
  'outputs-do-not-fit',
  'not-reported',
  'not-waiting',
  'comment-required',
  'not-an-agent-step',
  'not-read-only',
  'nothing-to-cancel',
  'needs-not-completed',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export function refuseEvent(code: RefusalCode, message: string): TransitionRefusal {
  return { code, message };
}

export function isEventRefusal(value: object): value is TransitionRefusal {
  return 'code' in value && 'message' in value;
}
