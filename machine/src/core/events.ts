/**
 * What happens to a run: the manager's calls, the step agents' reports, what backends observe, and
 * the operator's buttons. A step is named by its name; an after-task by `after.NAME`.
 */
export type RunEvent =
  /** the run begins: the steps that need nothing become ready */
  | { type: 'start' }
  /** the manager (or autopilot) starts a ready agent or check step, or an after-task of an ended run */
  | { type: 'start-step'; step: string; brief?: string }
  /** a backend launched the agent of an attempt; `agent` is its handle, for the lost-agent rule */
  | { type: 'step-started'; step: string; attempt: number; agent: string }
  /** the manager opens a ready gate, with an optional summary for the human */
  | { type: 'request-gate'; step: string; summary?: string }
  /** a step agent (or a check) reports; the step waits for the manager's decision */
  | {
      type: 'report';
      step: string;
      attempt?: number;
      outcome: string;
      summary?: string;
      outputs?: Record<string, unknown>;
    }
  /** the manager's decision on a reported step: apply this outcome's transition */
  | { type: 'complete-step'; step: string; outcome: string }
  /** a human decided an open gate */
  | { type: 'gate-decided'; step: string; choice: string; comment?: string }
  /** a step agent ended its turn without reporting (it gets one reminder) */
  | { type: 'agent-stopped'; step: string; attempt?: number }
  /**
   * a read-only role's agent changed the worktree during its turn (`paths`), or the worktree could not
   * be checked (`reason`): the attempt fails, and retries within `retries` (raised by the backend's
   * git check before the turn's report is fed in; the report is dropped)
   */
  | { type: 'read-only-violated'; step: string; attempt?: number; paths: string[]; reason?: string }
  /** a step agent no longer exists (found after a restart): lost at once */
  | { type: 'agent-lost'; step: string; attempt?: number; reason?: string }
  /** the manager sends a running step's agent a follow-up */
  | { type: 'nudge-step'; step: string; message: string }
  /** a step's attempt ran past its timeout, or (without `step`) the run past its wall clock */
  | { type: 'timeout'; step?: string; attempt?: number }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'cancel'; reason?: string }
  /** reopen an ended run from a step whose needs are settled */
  | { type: 'restart-from'; step: string }
  /**
   * the manager agent is gone (archived, or missing when its runs are taken up again): seed 000 — the
   * run fails, its running steps are stopped, no after-task starts and running ones are canceled
   */
  | { type: 'manager-lost'; reason?: string }
  /**
   * history only: an event from a backend that the run refused (`refused`: also a step agent's report
   * with a revoked token), a fault a backend met (`backend`: a daemon down, a runner's bad request),
   * a tool call a runner denied under the role's policy (`tool-denied`, as `recordDenial` writes
   * it), or what a runner's agent said (`agent`: its messages, phases and statuses, RF-003). Changes
   * nothing else.
   */
  | {
      type: 'note';
      kind: 'refused' | 'backend' | 'tool-denied' | 'agent';
      text: string;
      step?: string;
      attempt?: number;
    };

export type RunEventType = RunEvent['type'];

/** A gate's decision as a person (or a script) gives it: what `gate-decided` carries besides the step. */
export type GateDecision = Omit<Extract<RunEvent, { type: 'gate-decided' }>, 'type' | 'step'>;
