import type { IrRole } from '@kairoku-playbook/compiler';
import type { WakeUp } from './wakeup.js';

/**
 * What a transition asks the world to do. The core only describes effects; a backend performs them
 * and feeds what happens back as events. Secrets appear only in `start-check`'s `env`, which is never
 * persisted or printed.
 */
export type Effect =
  /**
   * a step became ready: the manager is told when it next wakes; autopilot starts it. `when` says that
   * the step's `when` condition was evaluated as it became ready, and held (SPEC §3.3); absent for a
   * step without one, and for a retry, which evaluates nothing
   */
  | { type: 'step-ready'; step: string; kind: 'agent' | 'check' | 'gate'; when?: true }
  | {
      type: 'start-agent';
      step: string;
      attempt: number;
      title: string;
      role: IrRole;
      provider: string | null;
      model: string | null;
      /** the rendered step prompt */
      prompt: string;
      /** loop feedback for this attempt ('' on the first) */
      feedback: string;
      loopCount: number;
      brief: string;
      /** the step's derived inputs with their values and sources */
      inputs: { from: string; value: unknown }[];
      /** check the worktree with git after the step: a change fails the attempt */
      readOnly: boolean;
      timeoutMs: number;
    }
  | {
      type: 'start-check';
      step: string;
      attempt: number;
      commands: string[];
      env: Record<string, string>;
      cwd: string | null;
      timeoutMs: number;
    }
  | { type: 'stop-agent'; step: string; attempt: number; reason: string }
  | {
      type: 'open-gate';
      step: string;
      attempt: number;
      title: string;
      summary: string;
      choices: { name: string; label: string | null; comment: 'none' | 'optional' | 'required' }[];
    }
  | { type: 'close-gate'; step: string; attempt: number; reason: string }
  | { type: 'remind-agent'; step: string; attempt: number; message: string }
  | { type: 'nudge-agent'; step: string; attempt: number; message: string }
  /** wake the manager, several wake-ups merged into one prompt */
  | { type: 'wake-manager'; wakeups: WakeUp[] }
  /** the state changed: write it (a driver may coalesce these) */
  | { type: 'persist' };

export type EffectType = Effect['type'];

/**
 * An effect that needs a live process (an agent, a check, the manager's conversation), and so is carried
 * in a run's `outbox` when the change that made it was applied where none could perform it. A check's
 * `env` is never carried (it may hold secrets): `withheld` names what it had.
 */
export type CarriedEffect =
  | Extract<Effect, { type: 'start-agent' | 'stop-agent' | 'remind-agent' | 'nudge-agent' | 'wake-manager' }>
  | (Omit<Extract<Effect, { type: 'start-check' }>, 'env'> & {
      env: Record<string, never>;
      withheld: string[];
    });

/** A gate to open: its rendered title and summary, and its choices with their comment rules. */
export type OpenGate = Extract<Effect, { type: 'open-gate' }>;

export const REMINDER =
  'Your turn ended without a report. Call report_step_result with your outcome, a summary and your outputs, then end your turn.';
