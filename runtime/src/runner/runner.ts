import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { forTerminal } from '@kairoku-playbook/machine';
import { resolveBindAddress } from '../backends/bind-address.js';
import { LIMITS, PROTOCOL_VERSION, bound } from '../backends/kairoku/protocol.js';
import type { CapacityResponse, Dispatch, Terminal } from '../backends/kairoku/protocol.js';
import { AppClient, AppRefusal, AppUntrusted, Unauthorized } from './app-client.js';
import { startCapacityServer } from './capacity-server.js';
import { EventLog } from './event-log.js';
import type { RunnerOptions } from './options.js';
import { providerFor } from './providers/index.js';
import type { Provider } from './providers/index.js';
import { addWorktree, removeWorktree, startingPoint } from './worktree.js';
import {
  dispatchRefusal,
  runAgent,
  runDispatchCheck,
  sleep,
  stopDispatch,
  withoutSecrets,
} from './dispatch-run.js';
import type { Active } from './dispatch-run.js';

/** exit codes of the runner process */
export const EXIT = { ok: 0, usage: 2, unauthorized: 3, untrusted: 4, failed: 1 } as const;

const BACKOFF_MAX_MS = 30_000;
const VERSION = `kairoku-playbook-runner/${PROTOCOL_VERSION}`;

/**
 * The reference runner daemon (docs/kairoku-protocol.md, the v1 contract RF-003…RF-023): it dials out
 * to the app with one credential, heartbeats and claims on two timers with backoff and stops in full
 * on a 401 (RF-012), runs each dispatch as one child process in a fresh git worktree, supervises it to
 * a terminal state and tears it down the same way on every exit path (RF-010), and reports curated
 * events on a third timer (RF-020). It queues nothing: with no room it simply does not claim.
 */
export class Runner {
  private readonly client: AppClient;
  private readonly active = new Map<string, Active>();
  private intervalMs: number;
  private heartbeatTimer: ReturnType<typeof setTimeout> | undefined;
  private claimTimer: ReturnType<typeof setTimeout> | undefined;
  private flushTimer: ReturnType<typeof setInterval> | undefined;
  private heartbeatFailures = 0;
  private beating: Promise<void> | undefined;
  private acknowledgingDrain = false;
  private claimFailures = 0;
  private registered = false;
  private draining = false;
  private shuttingDown = false;
  private stopped = false;
  private ended = false;
  private capacity: { url: string; close(): Promise<void> } | undefined;
  private finish!: (code: number) => void;
  private readonly finished: Promise<number>;
  private readonly logFile: string;
  private recovered: Dispatch[] = [];
  /** the exit code of a full stop: a 401, or an untrusted app */
  private exitCode: number = EXIT.unauthorized;
  /** what launches agents (RF-014), undefined when the runner runs checks only */
  private readonly provider: Provider | undefined;

  constructor(private readonly options: RunnerOptions) {
    this.provider = providerFor(options);
    this.client = new AppClient(options.app, options.token, 10_000, {
      ...(options.appCa !== undefined ? { ca: options.appCa } : {}),
      ...(options.appFingerprint !== undefined ? { fingerprint: options.appFingerprint } : {}),
    });
    this.intervalMs = options.heartbeatMs;
    this.logFile = join(options.workDir, 'runner.jsonl');
    this.finished = new Promise((resolve) => (this.finish = resolve));
  }

  /** Starts the listener and the timers; resolves to the capacity URL. */
  async start(): Promise<string> {
    for (const dir of ['logs', 'dispatches', 'worktrees'])
      mkdirSync(join(this.options.workDir, dir), { recursive: true, mode: 0o700 });
    // Judged by what it resolves to (`0` and `0x0` are the wildcard), as the app's listener is.
    const host = await resolveBindAddress(this.options.listen.host, {
      what: 'the capacity listener (--listen, RF-006)',
    });
    this.capacity = await startCapacityServer(host, this.options.listen.port, () => this.capacityView());
    this.log({ kind: 'start', runner: this.options.id, repository: this.options.repository });
    await this.recover();
    this.flushTimer = setInterval(() => this.flushAll(), this.options.flushMs);
    // The heartbeat loop lasts the runner's life and catches its own failures (logged, retried with
    // backoff; a 401 stops the runner): start resolves without it.
    void this.heartbeat();
    return this.capacity.url;
  }

  /** Resolves to the exit code once the runner has stopped. */
  wait(): Promise<number> {
    return this.finished;
  }

  capacityView(): CapacityResponse {
    return {
      running: this.active.size,
      max: this.options.capacity,
      draining: this.draining,
      runner: this.options.id,
    };
  }

  /**
   * SIGTERM: stop claiming, tear every dispatch down (reported `interrupted`), acknowledge the drain
   * and stop.
   */
  async shutdown(reason = 'the runner is shutting down'): Promise<void> {
    if (this.stopped || this.shuttingDown) return this.finished.then(() => undefined);
    this.log({ kind: 'shutdown', reason });
    this.shuttingDown = true;
    this.draining = true;
    clearTimeout(this.claimTimer);
    for (const a of this.active.values()) stopDispatch(a, 'interrupted', reason);
    const deadline = Date.now() + this.options.graceMs + 10_000;
    while (this.active.size && Date.now() < deadline) {
      this.flushAll();
      await sleep(50);
    }
    // No beat may reach the app after the drain-ack: stop the timer and let the one in flight land first.
    this.acknowledgingDrain = true;
    clearTimeout(this.heartbeatTimer);
    await this.beating;
    await this.drainAck();
    await this.stop(EXIT.ok);
  }

  // ---- the loop (RF-012) ------------------------------------------------------------------------

  /**
   * One heartbeat, remembered while it is in flight: the drain's acknowledgement waits for it, or a beat
   * the app answers after the drain-ack would register the runner again (seen as a flaky RF-010 test).
   */
  private heartbeat(): Promise<void> {
    const beat = this.beat();
    this.beating = beat;
    return beat;
  }

  private async beat(): Promise<void> {
    if (this.stopped || this.acknowledgingDrain) return;
    this.flushAll();
    try {
      const answer = await this.client.post('heartbeat', {
        runner: this.options.id,
        machine: this.options.machine,
        version: VERSION,
        capacity: { running: this.active.size, max: this.options.capacity },
        repositories: [this.options.repository],
        held: [...this.active.keys()],
        draining: this.draining,
      });
      if (this.stopped) return;
      this.heartbeatFailures = 0;
      this.intervalMs = answer.intervalMs;
      if (!this.registered) {
        this.registered = true;
        this.trustAppForAgents();
        this.log({ kind: 'registered' });
        // Not awaited: claiming need not wait for the reports, which catch their own failures.
        void this.reportRecovered();
        this.scheduleClaim(0);
      }
      for (const id of answer.cancel) {
        const a = this.active.get(id);
        if (a) stopDispatch(a, 'canceled', 'the app canceled it');
      }
      if (answer.drain && !this.draining) {
        this.draining = true;
        this.log({ kind: 'drain', reason: 'the app asked' });
      }
      if (this.draining && !this.shuttingDown && this.active.size === 0) {
        await this.drainAck();
        await this.stop(EXIT.ok);
        return;
      }
      // A timer cannot wait; the heartbeat catches its own failures.
      this.heartbeatTimer = setTimeout(() => void this.heartbeat(), this.intervalMs);
    } catch (error) {
      if (this.fatal(error)) return;
      this.heartbeatFailures++;
      this.log({
        kind: 'heartbeat-failed',
        error: (error as Error).message,
        failures: this.heartbeatFailures,
      });
      this.heartbeatTimer = setTimeout(
        // A timer cannot wait; the heartbeat catches its own failures.
        () => void this.heartbeat(),
        backoff(this.intervalMs, this.heartbeatFailures),
      );
    }
  }

  private scheduleClaim(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.claimTimer);
    // A timer cannot wait; a claim catches its own failures and schedules the next one.
    this.claimTimer = setTimeout(() => void this.claim(), ms);
  }

  private async claim(): Promise<void> {
    if (this.stopped || this.draining) return;
    const free = this.options.capacity - this.active.size;
    if (!this.registered || free <= 0) return this.scheduleClaim(this.options.claimMs);
    try {
      const answer = await this.client.post('claim', {
        runner: this.options.id,
        machine: this.options.machine,
        repositories: [this.options.repository],
        free,
      });
      if (this.stopped) return;
      this.claimFailures = 0;
      for (const dispatch of answer.dispatches) this.launch(dispatch);
      this.scheduleClaim(answer.dispatches.length ? 0 : this.options.claimMs);
    } catch (error) {
      if (this.fatal(error)) return;
      if (error instanceof AppRefusal && error.code === 'unknown-runner') {
        // The app forgot this runner (it missed its heartbeats, or the app restarted): register again.
        this.registered = false;
        clearTimeout(this.heartbeatTimer);
        // Not awaited: the heartbeat catches its own failures and schedules the next claim once registered.
        void this.heartbeat();
        return;
      }
      this.claimFailures++;
      this.log({ kind: 'claim-failed', error: (error as Error).message, failures: this.claimFailures });
      this.scheduleClaim(backoff(this.options.claimMs, this.claimFailures));
    }
  }

  /**
   * The step agents reach the app's report endpoint over the same TLS link as the runner: the
   * certificate the runner trusts (the pinned one, or the CA given) is written to the work dir and
   * handed to every agent process as NODE_EXTRA_CA_CERTS (with any the runner was itself given), so
   * a Node-based agent (the command provider's, Claude Code) verifies the app as the runner does.
   */
  private trustAppForAgents(): void {
    const pem = this.client.trustedPem;
    if (pem === undefined) return;
    const file = join(this.options.workDir, 'app-ca.pem');
    const inherited = this.inheritedCa ?? '';
    writeFileSync(file, `${inherited}${inherited && !inherited.endsWith('\n') ? '\n' : ''}${pem}`, {
      mode: 0o600,
    });
    process.env.NODE_EXTRA_CA_CERTS = file;
  }

  /** what NODE_EXTRA_CA_CERTS named when the runner started (kept in the agents' file) */
  private readonly inheritedCa = (() => {
    const file = process.env.NODE_EXTRA_CA_CERTS;
    try {
      return file ? readFileSync(file, 'utf8') : undefined;
    } catch {
      return undefined;
    }
  })();

  /** A 401 anywhere: the credential is gone, so everything stops (RF-012); an untrusted app too. */
  private fatal(error: unknown): boolean {
    if (this.stopped) return true;
    if (!(error instanceof Unauthorized)) return false;
    const untrusted = error instanceof AppUntrusted;
    this.log({ kind: untrusted ? 'untrusted' : 'unauthorized', error: error.message });
    process.stderr.write(
      untrusted
        ? `kairoku runner: the app is not trusted: stopping. ${forTerminal(error.message)}\n`
        : `kairoku runner: the app refused the credential (401): stopping. ${forTerminal(error.message)}\n`,
    );
    this.exitCode = untrusted ? EXIT.untrusted : EXIT.unauthorized;
    // Not awaited: the caller only needs to know it must stop; wait() resolves once the stop is done.
    void this.fullStop();
    return true;
  }

  private async fullStop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.heartbeatTimer);
    clearTimeout(this.claimTimer);
    for (const a of this.active.values()) {
      a.closed = true;
      stopDispatch(a, 'interrupted', 'the app refused the credential');
    }
    const deadline = Date.now() + this.options.graceMs + 10_000;
    while (this.active.size && Date.now() < deadline) await sleep(50);
    await this.stop(this.exitCode);
  }

  private async stop(code: number): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    this.stopped = true;
    clearTimeout(this.heartbeatTimer);
    clearTimeout(this.claimTimer);
    clearInterval(this.flushTimer);
    await this.capacity?.close();
    this.client.close();
    this.log({ kind: 'stop', code });
    this.finish(code);
  }

  private async drainAck(): Promise<void> {
    try {
      await this.client.post('drain-ack', { runner: this.options.id, held: [...this.active.keys()] });
      this.log({ kind: 'drain-ack' });
    } catch (error) {
      this.log({ kind: 'drain-ack-failed', error: (error as Error).message });
    }
  }

  // ---- dispatches -------------------------------------------------------------------------------

  private launch(doc: Dispatch): void {
    if (this.active.has(doc.id)) return;
    const secrets = [
      this.options.token,
      doc.agent?.report.token ?? '',
      ...Object.values(doc.check?.env ?? {}),
    ];
    const a: Active = {
      doc,
      events: new EventLog(join(this.options.workDir, 'logs', `${doc.id}.jsonl`), secrets),
      seq: 0,
      unsent: undefined,
      sending: Promise.resolve(),
      terminal: undefined,
      terminalSent: false,
      closed: false,
      stop: undefined,
      abort: new AbortController(),
      launched: undefined,
      worktree: undefined,
    };
    this.active.set(doc.id, a);
    // Not awaited: the dispatch runs beside the loop; supervise turns its failures into its terminal
    // status, and the dispatch stays in `active` until that status is sent.
    void this.supervise(a);
  }

  /** A dispatch from its claim to its terminal status, with the same teardown on every path (RF-010). */
  private async supervise(a: Active): Promise<void> {
    const d = a.doc;
    const what = { dispatch: d.id, run: d.run, step: d.step, attempt: d.attempt, type: d.kind };
    let terminal: Terminal;
    try {
      const refusal = dispatchRefusal(d, this.options, this.provider);
      if (refusal) {
        this.log({ kind: 'refused', ...what, reason: refusal });
        terminal = { status: 'refused', reason: refusal };
      } else {
        a.events.say('phase', 'preparing: a fresh worktree');
        const path = join(this.options.workDir, 'worktrees', d.id);
        // The breadcrumb first: a process that dies from here on leaves what a restart cleans up.
        writeFileSync(this.breadcrumb(d.id), JSON.stringify(withoutSecrets(d)), { mode: 0o600 });
        a.worktree = path;
        await addWorktree(
          this.options.repo,
          path,
          await startingPoint(this.options.repo, d.branch, d.baseBranch),
        );
        if (a.stop) terminal = { status: a.stop.status, reason: a.stop.reason };
        else {
          this.log({ kind: 'launch', ...what });
          a.events.say('phase', 'running');
          this.flush(a);
          terminal =
            d.kind === 'agent'
              ? await runAgent(a, path, {
                  provider: this.provider!,
                  dispatchFile: this.breadcrumb(d.id),
                  graceMs: this.options.graceMs,
                })
              : await runDispatchCheck(a, path, this.options.graceMs);
        }
      }
    } catch (error) {
      terminal = {
        status: a.stop?.status ?? 'failed',
        reason: bound((error as Error).message, LIMITS.reason),
      };
    }
    // Teardown, the same on every path: the process group, then the worktree, then the status.
    await a.launched?.interrupt();
    const keep = this.options.keepFailedWorktrees && terminal.status === 'failed';
    if (a.worktree && !keep) await removeWorktree(this.options.repo, a.worktree).catch(() => undefined);
    a.events.say('status', `ended: ${terminal.status}${terminal.reason ? ` (${terminal.reason})` : ''}`);
    this.log({ kind: 'terminal', ...what, status: terminal.status, ...(keep ? { kept: a.worktree } : {}) });
    a.terminal = terminal;
    if (a.closed) this.forget(a);
    else this.flush(a);
  }

  // ---- updates (RF-003, RF-020) -----------------------------------------------------------------

  private flushAll(): void {
    for (const a of this.active.values())
      if (a.events.waiting || a.unsent || (a.terminal && !a.terminalSent)) this.flush(a);
  }

  /** Sends what a dispatch has to say, one update at a time and in order. */
  private flush(a: Active): void {
    a.sending = a.sending.then(() => this.send(a)).catch(() => undefined);
  }

  private async send(a: Active): Promise<void> {
    while (!a.closed && !this.stopped) {
      if (!a.unsent) {
        const events = a.events.take();
        const terminal = a.terminal && !a.terminalSent && a.events.waiting === 0 ? a.terminal : undefined;
        if (!events.length && !terminal) return;
        a.unsent = { runner: this.options.id, dispatch: a.doc.id, seq: ++a.seq, events };
        if (terminal) {
          a.unsent.terminal = terminal;
          a.terminalSent = true;
        }
      }
      const update = a.unsent;
      try {
        const answer = await this.client.post('update', update);
        a.unsent = undefined;
        if (update.terminal) return this.forget(a);
        if (answer.cancel) stopDispatch(a, 'canceled', 'the app canceled it');
      } catch (error) {
        if (this.fatal(error)) return;
        if (error instanceof AppRefusal) {
          // 409: the app does not hold this dispatch for us any more (it failed it, or never knew
          // it): tear it down and forget it. 400 would be a bug here; the update is dropped.
          a.unsent = undefined;
          this.log({
            kind: 'update-refused',
            dispatch: a.doc.id,
            status: error.status,
            error: error.message,
          });
          if (error.status === 409) {
            a.closed = true;
            stopDispatch(a, 'canceled', `the app refused its update: ${error.message}`);
            if (a.terminal) this.forget(a);
          }
          return;
        }
        // Unreachable: the update is held as it is and leads the next tick.
        return;
      }
    }
  }

  private forget(a: Active): void {
    if (!this.active.delete(a.doc.id)) return;
    rmSync(this.breadcrumb(a.doc.id), { force: true });
    this.log({ kind: 'released', dispatch: a.doc.id });
    if (this.draining && !this.shuttingDown && this.active.size === 0 && !this.stopped) {
      clearTimeout(this.heartbeatTimer);
      // The last dispatch of a drain is gone: beat now to acknowledge it (the heartbeat catches its failures).
      void this.heartbeat();
    }
  }

  // ---- restart (RF-013) -------------------------------------------------------------------------

  /**
   * Dispatches a dead process of this runner left behind (their breadcrumbs): their worktrees are
   * removed, and each is reported failed (`interrupted`) once the app answers, never relaunched.
   */
  private async recover(): Promise<void> {
    const dir = join(this.options.workDir, 'dispatches');
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.json')) continue;
      try {
        const doc = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Dispatch;
        const worktree = join(this.options.workDir, 'worktrees', doc.id);
        if (existsSync(worktree)) await removeWorktree(this.options.repo, worktree);
        this.recovered.push(doc);
        this.log({ kind: 'recovered', dispatch: doc.id, run: doc.run, step: doc.step, attempt: doc.attempt });
      } catch {
        // a breadcrumb that cannot be read is nothing to report
      }
      rmSync(join(dir, name), { force: true });
    }
  }

  private async reportRecovered(): Promise<void> {
    const recovered = this.recovered;
    this.recovered = [];
    for (const doc of recovered) {
      try {
        await this.client.post('update', {
          runner: this.options.id,
          dispatch: doc.id,
          // above any count the dead process can have reached
          seq: Date.now(),
          events: [],
          terminal: {
            status: 'interrupted',
            reason:
              'the runner restarted: a dispatch left non-terminal by a dead runner is failed, never relaunched (RF-013)',
          },
        });
      } catch (error) {
        if (this.fatal(error)) return;
      }
    }
  }

  private breadcrumb(id: string): string {
    return join(this.options.workDir, 'dispatches', `${id}.json`);
  }

  private log(line: Record<string, unknown>): void {
    try {
      appendFileSync(this.logFile, `${JSON.stringify({ at: new Date().toISOString(), ...line })}\n`);
    } catch {
      // a log, not state
    }
  }
}

/** Exponential backoff with jitter, capped at 30 s. */
export function backoff(base: number, failures: number): number {
  const ms = Math.min(BACKOFF_MAX_MS, base * 2 ** Math.min(failures, 10));
  return Math.round(ms * (0.8 + Math.random() * 0.4));
}
