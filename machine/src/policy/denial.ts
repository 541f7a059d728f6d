import { derive } from '../core/derived.js';
import { AFTER_PREFIX, MASK } from '../core/state.js';
import type { RunState } from '../core/state.js';
import { advance } from '../core/transition.js';
import type { ToolCall } from './decide.js';

/** The history entry kind of a denied tool call (SPEC §3.4: every denial is an event). */
export const TOOL_DENIED = 'tool-denied';

export interface Denial {
  /** the step (or `after.NAME`) whose agent made the call */
  step: string;
  attempt: number;
  call: ToolCall;
  /** `decideToolCall`'s reason */
  reason: string;
}

/**
 * Records a denied tool call in the run's history as a `tool-denied` entry. Pure: returns a new
 * state (the input is not changed). Commands, paths and reasons may hold a secret input's value:
 * every secret value (given in `options.secrets`, as for `advance`) is replaced by the mask the state
 * uses for secret inputs before the text enters the state. An unknown step is a programming error.
 */
export function recordDenial(
  state: RunState,
  denial: Denial,
  now: number,
  options: { secrets?: Record<string, unknown> } = {},
): RunState {
  const { stepIndex, afterIndex } = derive(state.ir);
  const known = denial.step.startsWith(AFTER_PREFIX)
    ? afterIndex.has(denial.step.slice(AFTER_PREFIX.length))
    : stepIndex.has(denial.step);
  if (!known) throw new Error(`recordDenial: unknown step "${denial.step}" in run ${state.id}`);
  // A note, as the Kairoku backend's denials are: scrubbed, bounded and counted like every outsider's
  // entry (a runner may deny the same call many times).
  const text = `${denial.step} (attempt ${denial.attempt}): ${describeCall(denial.call)} denied: ${denial.reason}`;
  return advance(
    state,
    { type: 'note', kind: TOOL_DENIED, step: denial.step, attempt: denial.attempt, text },
    now,
    options,
  ).state;
}

function describeCall(call: ToolCall): string {
  switch (call.tool) {
    case 'read':
    case 'edit':
    case 'write':
      return `${call.tool} ${JSON.stringify(call.path ?? '')}`;
    case 'run':
      return `run ${JSON.stringify(call.command ?? '')}`;
    case 'mcp':
      return `mcp server ${JSON.stringify(call.server ?? '')}`;
    default:
      return String(call.tool);
  }
}

/**
 * The same rule as the transition function's scrubbing: every secret value of 4 characters or more
 * (shorter ones would mask ordinary words) becomes `MASK`; longer secrets first, so a secret that
 * contains another is masked whole.
 */
export function maskSecrets(text: string, secrets: Record<string, unknown>): string {
  const values = Object.values(secrets)
    .filter((v): v is string => typeof v === 'string' && v.length >= 4)
    .sort((a, b) => b.length - a.length);
  return values.reduce((out, secret) => out.split(secret).join(MASK), text);
}
