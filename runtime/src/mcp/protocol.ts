import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Ir } from '@kairoku-playbook/compiler';
import { closest } from '@kairoku-playbook/grammar';
import { readScenario } from '../backends/scenario.js';
import type { Scenario } from '../backends/scenario.js';
import { dueTimeouts, isEnded, stepRun, vecSlice } from '@kairoku-playbook/machine';
import type { RunEvent, RunState, TransitionRefusal } from '@kairoku-playbook/machine';
import type { Driver } from '../driver/driver.js';
import { RunHost } from '../host/run-host.js';
import type { HostResult } from '../host/run-host.js';
import { StoredReadOnlyGuard } from '../worktree/stored-guard.js';
import { defaultHome } from '../store/run-store.js';
import type { RunStore } from '../store/run-store.js';
import { BACKEND_OF, ProtocolBackend } from './backend.js';
import type { AgentMode } from './backend.js';
import { MANAGER_GUIDE } from '../backends/manager-guide.js';
import type { PaseoHost } from '../backends/paseo/host.js';
import { busyAsRefusal } from './store-lock.js';
import { ToolError, inToolTerms } from './tool-error.js';
import { progress, runLine, runView } from './views.js';
import {
  describeInputs,
  readyNow,
  reportHint,
  reportedNow,
  restartHint,
  runningNow,
  waitingNow,
} from './refusal-hints.js';
import { describeStart } from './started.js';
import { workspaceBranch, readWorkspace, validationJson } from './workspace.js';

export interface ProtocolOptions {
  /** the workspace folder: its playbooks are the ones that can be started */
  workspace: string;
  /** the run store's home (default `$KAIROKU_PLAYBOOK_HOME`, else `~/.kairoku-playbook`) */
  home?: string;
  /** who does a started step's work (default `sim`); see `ProtocolBackend` */
  agents?: AgentMode;
  /** a scenario (parsed YAML, SPEC §8) that scripts the sim agents of the runs started here */
  scenario?: unknown;
  clock?: () => number;
  /** the command line that starts `kairoku-playbook`, for step agents' servers (`external` agents) */
  selfCommand?: readonly string[];
  /** who is calling: recorded as the manager of the runs it starts or restarts */
  caller?: () => string;
  /**
   * `paseo` agents: the server's live side, which hosts the runs whose step agents are Paseo agents
   * (their backends, what they report while no tool call is in flight, wake-ups, timeouts)
   */
  paseo?: PaseoHost;
}

type Result = Record<string, unknown>;

interface Change {
  state: RunState;
  backend: ProtocolBackend;
  result: Result;
}

/**
 * The manager protocol (SPEC §6, seed 000), without a transport: one method per tool. Runs are
 * created and changed by the runtime's `RunHost` in manager mode (`startManaged`, `change`): every
 * change loads the run from the store under the store's lock, applies events through the transition
 * function (a driver without autopilot: the manager decides), lets the backend perform their effects,
 * and saves the state, so servers in several processes (a manager's, step agents') share runs
 * safely. A refusal throws `ToolError` with what to do instead.
 */
export class PlaybookProtocol {
  /** creates the runs started here and applies every change (manager mode: no claim, no autopilot) */
  readonly host: RunHost;
  readonly store: RunStore;
  /** snapshots of read-only attempts' worktrees, between start_step and their report */
  private readonly readOnlyGuard: StoredReadOnlyGuard;
  readonly workspace: string;
  readonly agents: AgentMode;
  private readonly clock: () => number;
  /** per run, how much of its history this server has shown: results list what happened since */
  private readonly seen = new Map<string, number>();

  constructor(private readonly options: ProtocolOptions) {
    this.workspace = realpath(resolve(options.workspace));
    this.agents = options.agents ?? 'sim';
    this.clock = options.clock ?? Date.now;
    this.host = new RunHost({
      home: options.home ?? defaultHome(),
      workspace: this.workspace,
      backend: BACKEND_OF[this.agents],
      clock: this.clock,
      roomHelp: { cancel: (id) => `cancel_run with run "${id}"` },
    });
    this.store = this.host.store;
    this.readOnlyGuard = new StoredReadOnlyGuard(join(this.store.home, 'read-only'));
  }

  private caller(): string {
    return this.options.caller?.() ?? 'mcp client';
  }

  private get paseo(): PaseoHost | undefined {
    return this.options.paseo;
  }

  /**
   * The secret input values of a run started here (memory only, SPEC §3.5); none for other runs. A run
   * keeps fingerprints of its secrets under the home's key, so a server without their values (a step
   * agent's, or this one after a restart) still masks them.
   */
  secretsOf(runId: string): Record<string, unknown> {
    return this.host.secretsOf(runId);
  }

  /**
   * Before a tool call on a run whose agents are Paseo agents: the run is hosted by this server (its
   * backend connected, its agents watched). `required` (start_step, restart_run): a run that cannot
   * be hosted is refused with why; otherwise only a run with work going is hosted, and a failure is
   * returned as a warning for the result (the call goes on: the stored run is all it needs).
   */
  async prepare(runId: string, required: boolean): Promise<string | undefined> {
    const paseo = this.paseo;
    if (!paseo) return undefined;
    let state: RunState | undefined;
    try {
      state = this.store.load(runId);
    } catch {
      return undefined; // the call itself says the run cannot be read
    }
    if (!state || state.backend !== BACKEND_OF.paseo || (!required && !paseo.wants(state))) return undefined;
    try {
      await paseo.host(runId);
      return undefined;
    } catch (error) {
      const why = `its Paseo agents cannot be watched from this server: ${(error as Error).message}`;
      if (required) throw new ToolError(`run ${runId}: ${why}`);
      return why;
    }
  }

  /**
   * On start: sim agents never outlive the process that ran them, so sim runs left with a running
   * step (a killed server) get the lost-agent rule, as `kairoku-playbook run` does.
   */
  recover(): { file: string; message: string }[] {
    return busyAsRefusal(() => this.host.loseGone(() => false, BACKEND_OF.sim).problems);
  }

  // ---- playbooks ----------------------------------------------------------------------------------

  listPlaybooks(): Result {
    const snapshot = readWorkspace(this.workspace);
    return {
      workspace: this.workspace,
      protocol: MANAGER_GUIDE,
      playbooks: snapshot.playbooks.map((p) => {
        const entry: Result = { id: p.id ?? null, title: p.title ?? null, file: p.file };
        if (p.ir) {
          entry.description = p.ir.description;
          entry.workspace = p.ir.workspace;
          entry.inputs = p.ir.inputs.map((i) => ({
            name: i.name,
            type: i.type,
            required: i.required,
            ...('default' in i ? { default: i.default } : {}),
            description: i.description,
            ...(i.secret ? { secret: true } : {}),
            ...(i.multiline ? { multiline: true } : {}),
          }));
          entry.steps = p.ir.steps.map((s) => ({
            name: s.name,
            kind: s.kind,
            needs: s.needs.map((n) => p.ir!.steps[n]!.name),
            outcomes: s.outcomes.map((o) => o.name),
          }));
          entry.concurrency = p.ir.limits.concurrency;
        } else {
          entry.errors = p.errors.map((d) => `${d.file}:${d.line}:${d.column}: ${d.code} ${d.message}`);
          entry.startable = false;
        }
        return entry;
      }),
    };
  }

  validatePlaybooks(): string {
    return validationJson(readWorkspace(this.workspace));
  }

  // ---- runs ---------------------------------------------------------------------------------------

  startPlaybook(args: { playbook: string; inputs?: Record<string, unknown> | undefined }): Result {
    const snapshot = readWorkspace(this.workspace);
    const found =
      snapshot.playbooks.find((p) => p.id === args.playbook) ??
      snapshot.playbooks.find((p) => p.file === args.playbook);
    if (!found) {
      const ids = snapshot.playbooks.map((p) => p.id).filter((id): id is string => id !== undefined);
      const suggestion = closest(args.playbook, ids);
      throw new ToolError(
        `unknown playbook "${args.playbook}"${suggestion ? `; did you mean "${suggestion}"?` : ''} ` +
          (ids.length
            ? `(this workspace has ${ids.join(', ')}; list_playbooks describes them)`
            : `(no playbooks were found in ${this.workspace})`),
      );
    }
    const ir = found.ir;
    if (!ir) {
      const shown = found.errors
        .slice(0, 5)
        .map((d) => `${d.file}:${d.line}:${d.column}: ${d.code} ${d.message}`);
      throw new ToolError(
        `playbook "${found.id ?? found.file}" has errors and cannot start; fix them first (validate_playbooks lists them all):\n${shown.join('\n')}`,
      );
    }
    const scripted = this.scenarioFor(ir);
    if (scripted.errors.length)
      throw new ToolError(
        `the scenario given to this server does not fit playbook "${ir.id}": ${scripted.errors.join('; ')}`,
      );
    const started = busyAsRefusal(() =>
      this.host.startManaged(
        ir,
        { ...(scripted.scenario?.inputs ?? {}), ...(args.inputs ?? {}) },
        { manager: this.caller(), workspaceBranch: workspaceBranch(this.workspace) },
        { backend: (created) => this.backendFor(created) },
        (driver) => {
          const refused = driver.send({ type: 'start' });
          if (refused !== undefined) throw new ToolError(inToolTerms(refused.message), refused.code);
        },
      ),
    );
    if (!started.ok) {
      const { code, message } = started.refusal;
      if (code === 'invalid-input')
        throw new ToolError(
          `the inputs do not fit playbook "${ir.id}": ${message}. Its inputs: ${describeInputs(ir)}`,
          code,
        );
      throw new ToolError(message, code);
    }
    const { state, warnings } = started.value;
    this.seen.set(state.id, 0);
    return this.report(state, 0, {
      started: true,
      file: found.file,
      branch: state.branch,
      ...(warnings.length ? { warnings } : {}),
    });
  }

  startStep(args: { run: string; step: string; brief?: string | undefined }): Result {
    const change = this.change(
      args.run,
      { type: 'start-step', step: args.step, ...(args.brief ? { brief: args.brief } : {}) },
      (state) => `; ${readyNow(state)}`,
    );
    const started = change.backend.started.find((e) => e.step === args.step);
    return started
      ? {
          started: describeStart(change.state, started, {
            home: this.store.home,
            managerAgent: this.paseo?.managerAgent,
            selfCommand: this.options.selfCommand,
          }),
          ...change.result,
        }
      : change.result;
  }

  completeStep(args: { run: string; step: string; outcome: string }): Result {
    return this.change(
      args.run,
      { type: 'complete-step', step: args.step, outcome: args.outcome },
      (state, refusal) =>
        refusal.code === 'not-reported'
          ? '; wait for its report (get_run shows it when it arrives)'
          : refusal.code === 'is-a-gate' || refusal.code === 'unknown-outcome'
            ? ''
            : `; ${reportedNow(state)}`,
    ).result;
  }

  requestGate(args: { run: string; step: string; summary?: string | undefined }): Result {
    const change = this.change(
      args.run,
      {
        type: 'request-gate',
        step: args.step,
        ...(args.summary !== undefined ? { summary: args.summary } : {}),
      },
      (state) => `; ${readyNow(state)}`,
    );
    const opened = change.backend.opened.find((g) => g.step === args.step);
    if (!opened) return change.result;
    const { step, attempt, title, summary, choices } = opened;
    return { gate: { step, attempt, title, summary, choices }, ...change.result };
  }

  resume(args: { run: string; step: string; choice: string; comment?: string | undefined }): Result {
    return this.change(
      args.run,
      {
        type: 'gate-decided',
        step: args.step,
        choice: args.choice,
        ...(args.comment !== undefined ? { comment: args.comment } : {}),
      },
      (state) => `; ${waitingNow(state)}`,
    ).result;
  }

  nudgeStep(args: { run: string; step: string; text: string }): Result {
    const change = this.change(
      args.run,
      { type: 'nudge-step', step: args.step, message: args.text },
      (state) => `; ${runningNow(state)}`,
    );
    const nudge = change.backend.nudges[0];
    if (!nudge) return change.result;
    const paseo = change.state.backend === BACKEND_OF.paseo && this.paseo !== undefined;
    const nudged = {
      step: nudge.step,
      attempt: nudge.attempt,
      message: nudge.message,
      delivered: paseo,
      note: paseo
        ? "sent to the step's Paseo agent as a follow-up message in its conversation"
        : `recorded in the run's history; the ${change.state.backend} backend has no conversation to send it to`,
    };
    return { nudged, ...change.result };
  }

  getRun(args: { run: string }): Result {
    const change = this.change(args.run, undefined, () => '');
    const unwakeable = this.paseo?.cannotWake(change.state);
    const view: Result = { ...runView(change.state), events: change.result.events };
    if (unwakeable !== undefined)
      view.warnings = [...(Array.isArray(view.warnings) ? (view.warnings as unknown[]) : []), unwakeable];
    return view;
  }

  listRuns(args: { archived?: boolean | undefined }): Result {
    // (the store's index: no run file is read but those changed behind it)
    const { entries: runs, problems } = this.store.list();
    const shown = runs
      .filter((r) => args.archived === true || r.archivedAt === undefined)
      .sort(
        (a, b) =>
          Number(isEnded(a.status)) - Number(isEnded(b.status)) ||
          (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0),
      );
    const result: Result = { workspace: this.workspace, runs: shown.map(runLine) };
    if (problems.length) result.unreadable = problems.map((p) => `${p.file}: ${p.message}`);
    return result;
  }

  cancelRun(args: { run: string; reason?: string | undefined }): Result {
    // A run another live process is driving (a `run --backend paseo`, another server's paseo run) is
    // asked to cancel, not written under its feet: that process would undo it at its next save.
    const owner = this.store.owner(args.run);
    if (owner !== undefined) {
      this.store.requestCancel(args.run, args.reason ?? `canceled by ${this.caller()}`);
      return {
        asked: true,
        run: args.run,
        next: `process ${owner} is driving run ${args.run}: it was asked to cancel it and stops its agents within a second; get_run shows the run canceled then`,
      };
    }
    return this.change(
      args.run,
      { type: 'cancel', reason: args.reason ?? `canceled by ${this.caller()}` },
      () => '',
    ).result;
  }

  restartRun(args: { run: string; step: string }): Result {
    const changed = busyAsRefusal(() =>
      this.host.change(
        args.run,
        {
          backend: (loaded) => this.backendFor(loaded),
          around: (driver, work) => this.within(driver, work),
          // The caller becomes the manager of the run it reopens (which is no longer archived).
          reopenAs: this.caller(),
        },
        (driver) => {
          const loaded = driver.state;
          const refusal = driver.send({ type: 'restart-from', step: args.step });
          if (refusal !== undefined) {
            const from = isEnded(loaded.status) ? restartHint(loaded) : '';
            throw new ToolError(`${inToolTerms(refusal.message)}${from}`, refusal.code);
          }
          return loaded.history.size;
        },
      ),
    );
    const { value: before, state } = this.settled(args.run, changed);
    return this.report(state, before, {});
  }

  /**
   * `report_step_result`: a step agent's report (outputs checked against the step's output schema).
   * `binding` is the run, step and attempt a step agent's server was started for.
   */
  reportStepResult(args: {
    run: string;
    step: string;
    attempt?: number | undefined;
    outcome: string;
    summary?: string | undefined;
    outputs?: Record<string, unknown> | undefined;
  }): Result {
    const report: RunEvent = {
      type: 'report',
      step: args.step,
      outcome: args.outcome,
      summary: args.summary ?? '',
      outputs: args.outputs ?? {},
      ...(args.attempt !== undefined ? { attempt: args.attempt } : {}),
    };
    // A read-only role's agent that changed the worktree fails its attempt, whatever it reports.
    let checked: { attempt: number; violation: RunEvent | undefined } | undefined;
    const event = (state: RunState): RunEvent => {
      const current = stepRun(state, args.step);
      const attempt = args.attempt ?? current?.attempts.at(-1)?.attempt;
      if (attempt === undefined || current?.status !== 'running') return report;
      checked = { attempt, violation: this.readOnlyGuard.check(state.id, args.step, attempt) };
      return checked.violation ?? report;
    };
    const change = this.change(args.run, event, (state, refusal) => reportHint(state, args.step, refusal));
    if (!checked) return change.result;
    this.readOnlyGuard.forget(change.state.id, args.step, checked.attempt);
    if (!checked.violation) return change.result;
    return {
      recorded: false,
      why: `step "${args.step}" has a read-only role, and the worktree changed during its turn: the report was dropped and the attempt failed`,
      ...change.result,
    };
  }

  // ---- the machinery ------------------------------------------------------------------------------

  /**
   * Loads a run, applies due timeouts and `event` (if any), saves, and describes what happened: one
   * managed change of the host, under the store's lock.
   */
  /**
   * A tool call of the agent a run's kickoff went to (serve's Start with the current agent): it has
   * the tools, and says so on the run, for serve's watch whatever the provider calls its tool calls.
   */
  private confirmKickoff(state: RunState): void {
    const kickoff = state.kickoff;
    if (!kickoff || kickoff.confirmedAt !== undefined || this.paseo?.managerAgent !== kickoff.agent) return;
    this.host.setKickoff(state.id, { ...kickoff, confirmedAt: new Date(this.clock()).toISOString() });
  }

  private change(
    runId: string,
    event: RunEvent | ((state: RunState) => RunEvent) | undefined,
    hint: (state: RunState, refusal: TransitionRefusal) => string,
  ): Change {
    const changed = busyAsRefusal(() =>
      this.host.change(
        runId,
        {
          backend: (loaded) => {
            this.paseo?.noticeRun(loaded);
            if (
              loaded.backend === BACKEND_OF.paseo &&
              !this.paseo &&
              typeof event === 'object' &&
              event.type === 'start-step'
            )
              throw new ToolError(
                `run ${runId} runs its steps as Paseo agents: start them from a manager's server started with --agents paseo`,
              );
            return this.backendFor(loaded);
          },
          around: (driver, work) => this.within(driver, work),
        },
        (driver, backend): Change => {
          const before = driver.state.history.size;
          for (const due of dueTimeouts(driver.state, this.clock())) driver.dispatch(due);
          const own = driver.refusals.length;
          if (event) {
            const refusal = driver.send(typeof event === 'function' ? event(driver.state) : event);
            if (refusal !== undefined)
              throw new ToolError(
                `${inToolTerms(refusal.message)}${hint(driver.state, refusal)}`,
                refusal.code,
              );
          }
          if (isEnded(driver.state.status)) this.readOnlyGuard.forgetRun(driver.state.id);
          const result = this.report(driver.state, before, {});
          const refused = driver.refusals.slice(own);
          if (refused.length)
            result.warnings = refused.map(
              (r) =>
                `${r.event.type}${'step' in r.event ? ` of ${r.event.step}` : ''} from the ${backend.name} backend was refused: ${inToolTerms(r.error)}`,
            );
          return { state: driver.state, backend, result };
        },
      ),
    );
    const settled = this.settled(runId, changed).value;
    this.confirmKickoff(settled.state);
    return settled;
  }

  /**
   * What the host did, or its refusal as a tool error: an unknown or unreadable run in this protocol's
   * words (with a did-you-mean), the others as the host says them, with their codes.
   */
  private settled<T>(runId: string, result: HostResult<T>): T {
    if (result.ok) return result.value;
    const { code, message } = result.refusal;
    if (code === 'unknown-run' || code === 'unreadable-run') this.load(runId);
    throw new ToolError(message, code);
  }

  /** A change of a paseo run: what its backend feeds in meanwhile joins `driver`'s queue. */
  private within<T>(driver: Driver, work: () => T): T {
    const paseo = this.paseo;
    return paseo && driver.state.backend === BACKEND_OF.paseo
      ? paseo.within(driver.state.id, driver, work)
      : work();
  }

  private backendFor(state: RunState): ProtocolBackend {
    if (state.backend === BACKEND_OF.external)
      return new ProtocolBackend('external', undefined, this.readOnlyGuard);
    if (state.backend === BACKEND_OF.paseo) {
      const paseo = this.paseo;
      const id = state.id;
      return new ProtocolBackend(
        'paseo',
        undefined,
        undefined,
        paseo ? (effect) => paseo.perform(id, effect, true) : undefined,
      );
    }
    return new ProtocolBackend('sim', this.scenarioFor(state.ir).scenario);
  }

  private scenarioFor(ir: Ir): { scenario: Scenario | undefined; errors: string[] } {
    if (this.options.scenario === undefined) return { scenario: undefined, errors: [] };
    // A playbook test (`*.test.yml`) is a scenario too: its `name` and `expect` are ignored here.
    return readScenario(this.options.scenario, ir, 'test');
  }

  private load(runId: string): RunState {
    let state: RunState | undefined;
    try {
      state = this.store.load(runId);
    } catch (error) {
      throw new ToolError(`run "${runId}" cannot be read: ${(error as Error).message}`);
    }
    if (state) return state;
    const ids = this.store.list().entries.map((r) => r.id);
    const suggestion = closest(runId, ids);
    throw new ToolError(
      `unknown run "${runId}"${suggestion ? `; did you mean "${suggestion}"?` : ''} (list_runs lists the runs)`,
    );
  }

  /** The progress of a run and what happened since this server last showed it. */
  private report(state: RunState, before: number, extra: Result): Result {
    const from = Math.min(this.seen.get(state.id) ?? before, state.history.size);
    const events = vecSlice(state.history, from).map((h) => h.text);
    this.seen.set(state.id, state.history.size);
    this.paseo?.shown(state.id);
    return { ...extra, ...progress(state), events };
  }
}

function realpath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
