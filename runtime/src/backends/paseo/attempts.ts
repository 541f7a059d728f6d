/**
 * The `paseo` backend's attempts of agent and check steps (by step and attempt, and by Paseo agent):
 * what phase each is in, the token it reports with, and the report it made, taken from the report
 * endpoint and fed to the run when it may be.
 */
import { stepIr } from '@kairoku-playbook/machine';
import type { RunEvent, RunState } from '@kairoku-playbook/machine';
import type { ReadOnlyGuard } from '../../worktree/read-only-guard.js';
import type { BackendContext } from '../../driver/backend.js';
import type { ReportBinding, ReportEndpoint, StepReport } from '../report-endpoint.js';
import type { ReportContract } from './first-message.js';

/**
 * - `creating`: create_agent_request sent, no agent id yet
 * - `turn`: the agent's turn runs (after its first message, a reminder or a nudge)
 * - `idle`: its turn ended without a report; a reminder may follow
 * - `stopped`: stop-agent (cancel, timeout, loop reset): nothing it does counts any more
 * - `done`: the attempt's part is over (reported, lost, violated, or a newer attempt began)
 */
export type Phase = 'creating' | 'turn' | 'idle' | 'stopped' | 'done';

export interface Tracked {
  step: string;
  attempt: number;
  kind: 'agent' | 'check';
  phase: Phase;
  readOnly: boolean;
  context: BackendContext;
  agentId?: string;
  token?: string;
  /** the accepted report, fed to the run when its turn ends (read-only roles) or once it has started */
  report?: { event: Extract<RunEvent, { type: 'report' }>; fed: boolean };
  /** the connection drops counted when the current turn began (see `resync`) */
  turnEpoch: number;
  /** a nudge was sent during the turn: a `turn_canceled` that follows is the steer, not the end */
  steered?: boolean;
  /** an agent of an earlier process of the runtime that cannot report here: why, as the reason it is lost */
  orphan?: string;
  /** `turn_started` events seen from its agent (whether a message started a turn after all) */
  turnStarts?: number;
}

export class Attempts {
  private readonly byKey = new Map<string, Tracked>();
  private readonly byAgentId = new Map<string, Tracked>();

  constructor(
    private readonly runId: string,
    private readonly endpoint: ReportEndpoint,
    private readonly guard: ReadOnlyGuard,
  ) {}

  get(step: string, attempt: number): Tracked | undefined {
    return this.byKey.get(key(step, attempt));
  }

  /** The attempt whose Paseo agent this is. */
  ofAgent(agentId: string): Tracked | undefined {
    return this.byAgentId.get(agentId);
  }

  add(tracked: Tracked): void {
    this.byKey.set(key(tracked.step, tracked.attempt), tracked);
    if (tracked.agentId !== undefined) this.byAgentId.set(tracked.agentId, tracked);
  }

  /** Gives the attempt the token it reports with (bound to its step's outcomes and outputs). */
  mint(tracked: Tracked, state: RunState): ReportContract | undefined {
    const contract = contractOf(state, tracked.step);
    tracked.token = this.endpoint.mint({
      run: this.runId,
      step: tracked.step,
      attempt: tracked.attempt,
      ...(contract ? { outcomes: contract.outcomes, outputs: contract.outputs } : {}),
    });
    return contract;
  }

  /** Paseo acknowledged the attempt's agent. */
  bind(tracked: Tracked, agentId: string): void {
    tracked.agentId = agentId;
    this.byAgentId.set(agentId, tracked);
  }

  all(): IterableIterator<Tracked> {
    return this.byKey.values();
  }

  /** The attempts that have (or had) a Paseo agent. */
  withAgents(): IterableIterator<Tracked> {
    return this.byAgentId.values();
  }

  /** The attempt's part is over: its token is revoked, its read-only snapshot dropped. */
  end(tracked: Tracked): void {
    tracked.phase = 'done';
    if (tracked.token) this.endpoint.revoke(tracked.token);
    this.guard.forget(tracked.step, tracked.attempt);
  }

  lose(tracked: Tracked, reason: string): void {
    this.end(tracked);
    tracked.context.emit({ type: 'agent-lost', step: tracked.step, attempt: tracked.attempt, reason });
  }

  loseOrphan(tracked: Tracked): void {
    this.lose(tracked, tracked.orphan!);
  }

  /** Whether an agent is being made (its events may come before the answer that names it). */
  creating(): boolean {
    for (const tracked of this.byKey.values()) if (tracked.phase === 'creating') return true;
    return false;
  }

  /** A new attempt of a step begins: what is left of its earlier ones is dropped. */
  retire(step: string, attempt: number): void {
    for (const [k, tracked] of this.byKey) {
      if (tracked.step !== step || tracked.attempt >= attempt) continue;
      if (tracked.phase !== 'stopped') this.end(tracked);
      else if (tracked.token) this.endpoint.revoke(tracked.token);
      this.byKey.delete(k);
    }
  }

  revokeAll(): void {
    for (const tracked of this.byKey.values()) if (tracked.token) this.endpoint.revoke(tracked.token);
  }

  // ---- reports ------------------------------------------------------------------------------------

  /** A report refused for its revoked token, written into the run's history; false when the attempt is unknown. */
  noteRejected(binding: ReportBinding, reason: string): boolean {
    const tracked = binding.run === this.runId ? this.get(binding.step, binding.attempt) : undefined;
    if (!tracked) return false;
    tracked.context.emit({
      type: 'note',
      kind: 'refused',
      step: binding.step,
      attempt: binding.attempt,
      text: `a report_step_result call was refused: ${reason}`,
    });
    return true;
  }

  /**
   * A report from the endpoint: the run's refusal, or undefined when it is taken. It is submitted to
   * the run at once, unless it must wait: a read-only role's report waits for the end of its turn and
   * the git check (seed 000), and any report for an agent Paseo has not acknowledged yet waits for its
   * `step-started`. A report that waits is judged now (`refusalOf`, the driver's answer on the run as
   * it is) and fed later; a refused one is fed all the same, so the run records the refusal.
   */
  onReport(binding: ReportBinding, report: StepReport): string | undefined {
    if (binding.run !== this.runId) return `this token belongs to run ${binding.run}, not to this one`;
    const tracked = this.get(binding.step, binding.attempt);
    if (!tracked || tracked.phase === 'stopped' || tracked.phase === 'done')
      return `attempt ${binding.attempt} of ${binding.step} has ended: its report is not taken`;
    if (tracked.report) return `attempt ${binding.attempt} of ${binding.step} has already reported`;
    const event: Extract<RunEvent, { type: 'report' }> = {
      type: 'report',
      step: binding.step,
      attempt: binding.attempt,
      outcome: report.outcome,
      ...(report.summary !== undefined ? { summary: report.summary } : {}),
      ...(report.outputs !== undefined ? { outputs: report.outputs } : {}),
    };
    if (tracked.readOnly || tracked.phase === 'creating') {
      const refusal = tracked.context.refusalOf(event);
      if (refusal !== undefined) {
        tracked.context.emit(event);
        return refusal;
      }
      tracked.report = { event, fed: false };
      return undefined;
    }
    // Set first: what the report sets off (a stop of this attempt, say) already sees it taken.
    tracked.report = { event, fed: true };
    const refusal = tracked.context.submit(event);
    if (refusal !== undefined) delete tracked.report;
    return refusal;
  }

  /** The report that waited is fed to the run. */
  feedReport(tracked: Tracked): void {
    if (!tracked.report || tracked.report.fed) return;
    tracked.report.fed = true;
    tracked.context.emit(tracked.report.event);
  }
}

/** The step's outcomes and outputs, for the first message and the tool's description. */
function contractOf(state: RunState, name: string): ReportContract | undefined {
  const ir = stepIr(state, name);
  if (!ir) return undefined;
  return { outcomes: ir.outcomes.map((o) => o.name), outputs: ir.outputs.map((o) => `${o.name}: ${o.type}`) };
}

function key(step: string, attempt: number): string {
  return `${step}#${attempt}`;
}
