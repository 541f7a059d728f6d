/** One run: its actions, the gates waiting for a decision, the graph, End, After the run, a step's sheet. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { AttemptView, ChoiceView, RunDetail, StepDetail } from '@kairoku-playbook/protocol';
import { api } from './api.js';
import { Graph } from './graph.js';
import { runHasEnded, runIcon, runLabel, runState, stepState } from './status.js';
import { act, actOn, attention, openStep } from './store.js';
import { absolute, ago, coarseClock, duration, elapsed, nowFor, stepDuration, stepIsActive } from './time.js';
import { Timeline } from './timeline-view.js';

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function Values({ values, label }: { values: Record<string, unknown> | null | undefined; label: string }) {
  const entries = Object.entries(values ?? {});
  if (!entries.length) return null;
  return (
    <dl class="values" aria-label={label}>
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <pre>{show(value)}</pre>
          </dd>
        </div>
      ))}
    </dl>
  );
}

function GateForm({ detail, step }: { detail: RunDetail; step: StepDetail }) {
  const gate = step.gate!;
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const id = `gate-${step.name}`;
  const takesComment = gate.choices.some((choice) => choice.comment !== 'none');
  /** An event handler: act shows a failure in the status line, so nothing waits on the decision. */
  const decideOn = (choice: ChoiceView) => () => {
    // decide never rejects: its only await is act's, which shows its own failure
    void decide(choice);
  };
  const decide = async (choice: ChoiceView) => {
    if (choice.comment === 'required' && !comment.trim()) {
      setError(`${choice.label ?? choice.name} needs a comment.`);
      document.getElementById(`${id}-comment`)?.focus();
      return;
    }
    setError(null);
    const text = choice.comment === 'none' ? undefined : comment.trim() || undefined;
    if (
      await act(
        () => api.decide(detail.run.id, step.name, choice.name, text),
        `${step.name}: ${choice.label ?? choice.name}.`,
      )
    )
      setComment('');
  };
  return (
    <section class="gate" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{gate.title || step.name}</h3>
      {gate.summary && <p class="gate-summary">{gate.summary}</p>}
      {takesComment && (
        <div class={`field${error ? ' invalid' : ''}`}>
          <label for={`${id}-comment`}>Comment on {step.name}</label>
          <textarea
            id={`${id}-comment`}
            rows={2}
            value={comment}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? `${id}-error` : undefined}
            onInput={(e) => setComment((e.currentTarget as HTMLTextAreaElement).value)}
          />
          {error && (
            <p class="field-error" id={`${id}-error`}>
              {error}
            </p>
          )}
        </div>
      )}
      <div class="buttons">
        {gate.choices.map((choice) => (
          <button type="button" key={choice.name} class="choice" onClick={decideOn(choice)}>
            {choice.label ?? choice.name}
            {choice.comment === 'required' ? ' (comment required)' : ''}
          </button>
        ))}
      </div>
    </section>
  );
}

/** An attempt's time in the sheet: ticking while it is the step's open attempt. */
function AttemptTime({ attempt, status, last }: { attempt: AttemptView; status: string; last: boolean }) {
  const active = last && stepIsActive(status);
  const took = stepDuration(
    [attempt],
    active ? status : 'completed',
    active ? nowFor(attempt.startedAt) : Date.now(),
  );
  return took === null ? null : <span class="took"> · {duration(took)}</span>;
}

/** The step's time over its attempts, in the sheet's status line. */
function StepTook({ step }: { step: StepDetail }) {
  const now = stepIsActive(step.status) ? nowFor(step.attempts[0]?.startedAt) : Date.now();
  const took = stepDuration(step.attempts, step.status, now);
  if (took === null) return null;
  return <> · {stepIsActive(step.status) ? `for ${duration(took)}` : `took ${duration(took)}`}</>;
}

/** What the sheet tells of the step's latest state: inputs, brief, report, activity, attempts, role. */
function StepFacts({ step }: { step: StepDetail }) {
  return (
    <>
      {step.inputs && step.inputs.length > 0 && (
        <>
          <h4>Inputs</h4>
          <table class="inputs">
            <thead>
              <tr>
                <th scope="col">Input</th>
                <th scope="col">From</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {step.inputs.map((input) => (
                <tr key={input.name}>
                  <td>{input.name}</td>
                  <td>{input.source}</td>
                  <td>
                    <pre>{show(input.value)}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {step.brief && (
        <>
          <h4>Brief</h4>
          <pre class="brief">{step.brief}</pre>
        </>
      )}
      {(step.summary || step.outputs) && (
        <>
          <h4>Report</h4>
          {step.summary && <p>{step.summary}</p>}
          <Values values={step.outputs} label={`Outputs of ${step.name}`} />
        </>
      )}
      {step.activity.length > 0 && (
        <>
          <h4>Activity</h4>
          <ol class="activity" aria-label={`What happened in ${step.name}`}>
            {step.activity.map((entry, index) => (
              <li key={index} class={`activity-${entry.kind}`}>
                <time dateTime={entry.at}>{entry.at.slice(11, 19)}</time>{' '}
                {entry.attempt !== undefined ? `#${entry.attempt} ` : ''}
                {entry.text}
                {entry.count !== undefined ? ` (×${entry.count})` : ''}
              </li>
            ))}
          </ol>
        </>
      )}
      {step.attempts.length > 0 && (
        <>
          <h4>Attempts</h4>
          <ul class="attempts">
            {step.attempts.map((a) => (
              <li key={a.attempt}>
                {`#${a.attempt} ${a.outcome ?? '(no outcome yet)'}${a.summary ? `: ${a.summary}` : ''}`}
                <AttemptTime attempt={a} status={step.status} last={a === step.attempts.at(-1)} />
              </li>
            ))}
          </ul>
        </>
      )}
      {step.role && (
        <>
          <h4>Role: {step.role.name}</h4>
          <pre class="instructions">{step.role.instructions}</pre>
        </>
      )}
    </>
  );
}

/** Nudge (a running agent), Retry, Restart run from here: as the API allows. */
function SheetActions({
  detail,
  step,
  keepFocus,
}: {
  detail: RunDetail;
  step: StepDetail;
  keepFocus: (done: Promise<boolean>) => void;
}) {
  const [message, setMessage] = useState('');
  const canRestart = detail.actions.restartFrom.includes(step.name);
  const nudge = async (e: Event) => {
    e.preventDefault();
    if (!message.trim()) return;
    if (await act(() => api.nudge(detail.run.id, step.name, message.trim()), `Nudged ${step.name}.`))
      setMessage('');
  };
  return (
    <div class="sheet-actions">
      {step.canNudge && (
        // (act never rejects: a failure is shown in the status line)
        <form class="nudge" onSubmit={(e) => void nudge(e)}>
          <label for="nudge-message">Nudge {step.name}</label>
          <textarea
            id="nudge-message"
            rows={2}
            value={message}
            onInput={(e) => setMessage((e.currentTarget as HTMLTextAreaElement).value)}
          />
          <button type="submit">Send nudge</button>
        </form>
      )}
      {step.canRetry && (
        <button
          type="button"
          onClick={() => keepFocus(act(() => api.retry(detail.run.id, step.name), `Retrying ${step.name}.`))}
        >
          Retry {step.name}
        </button>
      )}
      {canRestart && (
        <button
          type="button"
          onClick={() =>
            keepFocus(act(() => api.restart(detail.run.id, step.name), `Restarted from ${step.name}.`))
          }
        >
          Restart run from here
        </button>
      )}
    </div>
  );
}

function StepSheet({
  detail,
  step,
  attempt,
}: {
  detail: RunDetail;
  step: StepDetail;
  attempt: number | null;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const sheet = useRef<HTMLElement>(null);
  // The whole sheet in view (below the graph when narrow, it may open under the fold), its heading focused.
  useEffect(() => {
    heading.current?.focus({ preventScroll: true });
    sheet.current?.scrollIntoView({ block: 'nearest' });
  }, [step.name, attempt]);
  const shown = attempt === null ? null : step.attempts.find((a) => a.attempt === attempt);
  const close = () => {
    const name = step.name;
    openStep.value = null;
    requestAnimationFrame(() =>
      document.querySelector<HTMLButtonElement>(`.node-button[data-step="${CSS.escape(name)}"]`)?.focus(),
    );
  };
  // Escape closes the sheet wherever the focus is (an action may have removed the focused button).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('dialog[open]')) close(); // a dialog's Escape is its own
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });
  /** After an action whose button may go away, the focus stays in the sheet. */
  const keepFocus = (done: Promise<boolean>) =>
    // `done` is act's, which never rejects (it shows its failure): nothing to wait for here
    void done.then(() => {
      if (!document.activeElement || document.activeElement === document.body) heading.current?.focus();
    });
  return (
    <aside class="sheet" aria-labelledby="sheet-title" ref={sheet}>
      <header>
        <h3 id="sheet-title" tabIndex={-1} ref={heading}>
          {step.name}
          {shown ? ` · attempt #${shown.attempt}` : ''}
        </h3>
        <button type="button" onClick={close} aria-label={`Close the details of ${step.name}`}>
          Close
        </button>
      </header>
      <p class={`state ${stepState(step.status)}`}>
        {step.kind} · {step.status}
        {step.outcome ? ` · ${step.outcome}` : ''}
        <StepTook step={step} />
      </p>
      {step.reason && <p class="reason">{step.reason}</p>}
      {shown ? (
        <>
          <h4>Attempt #{shown.attempt}</h4>
          {shown.outcome && <p>Outcome: {shown.outcome}</p>}
          {shown.summary && <p>{shown.summary}</p>}
          <Values values={shown.outputs} label="Outputs of this attempt" />
        </>
      ) : (
        <StepFacts step={step} />
      )}
      <SheetActions detail={detail} step={step} keepFocus={keepFocus} />
    </aside>
  );
}

/** A sim run says so beside its status: its agents are scripted or generated and no model ran. */
function SimulatedBadge({ backend }: { backend: string }) {
  if (backend !== 'sim') return null;
  return (
    <>
      {' '}
      <span
        class="badge simulated"
        title="Run on the sim backend: scripted or generated agents, no model; its outputs are made up"
      >
        simulated
      </span>
    </>
  );
}

/**
 * A button whose action cannot be undone asks first, in a modal dialog (the browser's `confirm` is not
 * there in a VS Code webview). "No" has the focus; Escape is No.
 */
function Confirmed(props: { label: string; question: string; yes: string; no: string; onYes: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = `confirm-${props.label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <>
      <button type="button" class="danger" onClick={() => dialog.current?.showModal()}>
        {props.label}
      </button>
      <dialog ref={dialog} class="confirm" aria-labelledby={`${id}-question`}>
        <p id={`${id}-question`}>{props.question}</p>
        <div class="buttons">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            {props.no}
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              dialog.current?.close();
              props.onYes();
            }}
          >
            {props.yes}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** After an action whose button goes away, the focus goes to the run's heading rather than the page. */
const thenKeepFocus = (done: Promise<boolean>) =>
  // act never rejects (it shows its failure): nothing to wait for but the focus
  void done.then(() => {
    if (!document.activeElement || document.activeElement === document.body)
      document.getElementById('run-title')?.focus();
  });

function RunActions({ detail }: { detail: RunDetail }) {
  const { run, actions } = detail;
  return (
    <div class="buttons run-actions">
      {actions.pause && (
        <button type="button" onClick={actOn(() => api.act(run.id, 'pause'), 'Paused.')}>
          Pause
        </button>
      )}
      {actions.resume && (
        <button type="button" onClick={actOn(() => api.act(run.id, 'resume'), 'Resumed.')}>
          Resume
        </button>
      )}
      {actions.cancel && (
        <Confirmed
          label="Cancel run"
          question={`Cancel ${run.title}? Its running steps stop, and it cannot be resumed.`}
          yes="Yes, cancel the run"
          no="No, keep it running"
          onYes={() => thenKeepFocus(act(() => api.act(run.id, 'cancel'), 'Canceled.'))}
        />
      )}
      {actions.archive && (
        <Confirmed
          label="Archive run"
          question={`Archive ${run.title}? It stays open here, then leaves the run list; Show archived runs brings it back.`}
          yes="Yes, archive it"
          no="No, keep it"
          onYes={() => thenKeepFocus(act(() => api.act(run.id, 'archive'), 'Archived.'))}
        />
      )}
    </div>
  );
}

/** The run's time: ticking while it runs (or is paused), how long it took once it ended. */
function RunElapsed({ run }: { run: RunDetail['run'] }) {
  const took = elapsed(run.startedAt, run.endedAt, run.endedAt ? Date.now() : nowFor(run.startedAt));
  if (took === null) return null;
  return (
    <span class="elapsed">
      {run.endedAt ? ` · took ${duration(took)}` : ` · running for ${duration(took)}`}
    </span>
  );
}

function RunHeader({ detail }: { detail: RunDetail }) {
  const run = detail.run;
  return (
    <header class="run-header">
      <h2 id="run-title" tabIndex={-1}>
        {run.title}{' '}
        <span class={`badge ${runState(run.status, run.waiting)}`}>
          <span aria-hidden="true">{runIcon(run.status, run.waiting)} </span>
          {runLabel(run.status)}
        </span>
        <SimulatedBadge backend={run.backend} />
      </h2>
      <p class="run-facts">
        {run.playbook} · started{' '}
        <time dateTime={run.startedAt} title={absolute(run.startedAt)}>
          {ago(run.startedAt, coarseClock.value)}
        </time>
        <RunElapsed run={run} />
        {run.manager?.making ? (
          <span class="making-manager" role="status">
            {' · making the manager agent…'}
          </span>
        ) : run.manager ? (
          ` · managed by ${run.manager.name}`
        ) : (
          ''
        )}
        {run.reason ? ` · ${run.reason}` : ''}
      </p>
      <RunActions detail={detail} />
    </header>
  );
}

/**
 * An after-task's status, or why it will not run: it is pending, the run has ended with a status the
 * task does not start on, and it is not offered to start.
 */
function afterStatus(detail: RunDetail, task: StepDetail): string {
  const status = runLabel(detail.run.status);
  if (task.status !== 'pending' || task.startable || !runHasEnded(detail.run.status)) return task.status;
  if (!task.on || task.on.some((on) => runLabel(on) === status)) return task.status;
  return `not run: the run ${status === 'canceled' ? 'was canceled' : status}`;
}

function AfterTasks({ detail }: { detail: RunDetail }) {
  const run = detail.run;
  if (detail.after.length === 0) return null;
  return (
    <section class="after" aria-labelledby="after-title">
      <h3 id="after-title">After the run</h3>
      <ul>
        {detail.after.map((task) => (
          <li key={task.name} class={`after-task ${stepState(task.status)}`}>
            <button
              type="button"
              class="link"
              onClick={() => (openStep.value = { name: task.name, attempt: null })}
            >
              {task.name}
            </button>{' '}
            <span class="status">{afterStatus(detail, task)}</span>
            {task.on && task.on.length > 0 && <span class="on"> · on {task.on.join(', ')}</span>}
            {task.startable && (
              <button
                type="button"
                class="primary"
                aria-label={`Start ${task.name}`}
                onClick={actOn(() => api.startAfter(run.id, task.name), `Started ${task.name}.`)}
              >
                Start
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

const typing = (element: Element | null) =>
  element instanceof HTMLInputElement ||
  element instanceof HTMLTextAreaElement ||
  element instanceof HTMLSelectElement;

/**
 * The run the person started (or the page opened on because it waits) takes the focus: its heading at
 * once, its first open gate's first control when the gate shows. Never from someone typing elsewhere.
 */
function useAttention(detail: RunDetail, gates: number): void {
  const wanted = attention.value;
  useEffect(() => {
    if (!wanted || wanted.run !== detail.run.id || typing(document.activeElement)) return;
    if (gates > 0) {
      const control = document.querySelector<HTMLElement>('.waiting-gates textarea, .waiting-gates button');
      control?.scrollIntoView({ block: 'center' });
      control?.focus();
      attention.value = null;
    } else if (wanted.heading) {
      document.getElementById('run-title')?.focus();
      attention.value = { ...wanted, heading: false };
    }
  }, [wanted, detail.run.id, detail.version, gates]);
}

export function RunView({ detail }: { detail: RunDetail }) {
  const run = detail.run;
  const open = openStep.value;
  const sheetStep = open
    ? (detail.steps.find((s) => s.name === open.name) ?? detail.after.find((s) => s.name === open.name))
    : undefined;
  const waiting = detail.steps.filter((s) => s.status === 'waiting' && s.gate);
  useAttention(detail, waiting.length);
  const ended = runHasEnded(run.status);
  return (
    <div class="run-view" data-run={run.id} data-version={detail.version}>
      <RunHeader detail={detail} />
      {/* What the person has to act on comes first, above the graph. */}
      {waiting.length > 0 && (
        <section class="waiting-gates" aria-label="Waiting for you">
          {waiting.map((step) => (
            <GateForm key={step.name} detail={detail} step={step} />
          ))}
        </section>
      )}
      <div class={`run-body${sheetStep ? ' with-sheet' : ''}`}>
        <div class="run-graph">
          <Graph
            detail={detail}
            selected={open?.name ?? null}
            onOpen={(name, attempt) => (openStep.value = { name, attempt })}
          />
          <div class={`end ${ended ? runState(run.status, 0) : 'unreached'}`}>
            <span class="end-pill">End</span>
            <Values values={run.outputs ?? null} label="Outputs of the run" />
          </div>
          <AfterTasks detail={detail} />
          <Timeline key={run.id} detail={detail} />
        </div>
        {sheetStep && <StepSheet detail={detail} step={sheetStep} attempt={open!.attempt} />}
      </div>
    </div>
  );
}
