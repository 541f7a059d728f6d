/**
 * The run's timeline: a table, one row per step that has started (its name, a strip with a bar per
 * attempt on the run's time, its time in words). A loop shows as the same steps' bars again, later; each
 * bar is a button that opens that attempt in the step's sheet, named in words ("review attempt #1:
 * changes, 3 s"), so the strip is not read by colour or position alone.
 */
import { Component } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { RunDetail } from '@kairoku-playbook/protocol';
import { openStep } from './store.js';
import { duration, nowFor, stepIsActive } from './time.js';
import { startedSteps, timelineOf } from './timeline.js';
import type { TimelineRow } from './timeline.js';

/** Above this many started steps the timeline starts folded (its rows are drawn only when opened). */
const FOLDED_ABOVE = 100;

/**
 * One step's row. Drawn again only when what it shows changed (`shape`): an event or a tick of the clock
 * redraws the rows of the steps that moved, not a hundred rows (the axis is round, so it rarely moves).
 */
class Row extends Component<{ row: TimelineRow; shape: string }> {
  override shouldComponentUpdate(next: { shape: string }): boolean {
    return next.shape !== this.props.shape;
  }

  override render() {
    const { row } = this.props;
    return (
      <tr>
        <th scope="row">{row.step}</th>
        <td class="strip">
          <div class="track">
            {row.bars.map((bar) => (
              <button
                type="button"
                key={bar.attempt}
                class={`bar ${bar.state}`}
                style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
                aria-label={`${row.step} attempt ${bar.text.replace(/^(#\d+) /, '$1: ')}`}
                title={`${row.step} ${bar.text}`}
                onClick={() => (openStep.value = { name: row.step, attempt: bar.attempt })}
              />
            ))}
          </div>
        </td>
        <td class="time">
          {/* narrow, it wraps between its parts, not inside them */}
          {row.time.split(' · ').map((part, i, parts) => (
            <span key={i}>{i < parts.length - 1 ? `${part} · ` : part}</span>
          ))}
        </td>
      </tr>
    );
  }
}

function TimelineTable({ detail }: { detail: RunDetail }) {
  const steps = [...detail.steps, ...detail.after];
  const open = steps.find((s) => stepIsActive(s.status) && s.attempts.length > 0);
  // ticking only while an attempt is open, and to 30 s once the run is over an hour old
  const now = open ? nowFor(open.attempts.at(-1)?.startedAt) : Date.now();
  const { rows, span } = timelineOf(steps, now);
  return (
    <table class="timeline" aria-labelledby="timeline-title">
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">
            Attempts <span class="axis">(0 to {duration(span)})</span>
          </th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <Row key={row.step} row={row} shape={JSON.stringify(row)} />
        ))}
      </tbody>
    </table>
  );
}

/**
 * The value a frame after it changed, once the browser has painted: the graph and the gates show an
 * event first, the timeline follows (it never delays them). Undefined until the first paint, so a run
 * opened (a click in the run list) shows its graph in the first frame and its timeline in the next.
 */
function useAfterPaint<T>(value: T): T | undefined {
  const [shown, setShown] = useState<T | undefined>(undefined);
  useEffect(() => {
    if (shown === value) return;
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => setShown(value), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [value, shown]);
  return shown;
}

const startedIn = (detail: RunDetail) => startedSteps(detail.steps) + startedSteps(detail.after);

export function Timeline({ detail: latest }: { detail: RunDetail }) {
  const detail = useAfterPaint(latest);
  const [unfolded, setUnfolded] = useState(() => startedIn(latest) <= FOLDED_ABOVE);
  if (!detail) return null;
  const count = startedIn(detail);
  if (count === 0) return null;
  return (
    <section class="timeline-section" aria-labelledby="timeline-title">
      <details open={unfolded} onToggle={(e) => setUnfolded((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <h3 id="timeline-title">Timeline</h3>{' '}
          <span class="muted">
            {count} {count === 1 ? 'step' : 'steps'} started
          </span>
        </summary>
        {unfolded && <TimelineTable detail={detail} />}
      </details>
    </section>
  );
}
