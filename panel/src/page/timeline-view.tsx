/**
 * The run's timeline: a table, one row per step that has started (its name, a strip with a bar per
 * attempt on the run's time, its time in words). A loop shows as the same steps' bars again, later; each
 * bar is a button that opens that attempt in the step's sheet, named in words ("review attempt #1:
 * changes, 3 s"), so the strip is not read by colour or position alone.
 */
import { useState } from 'preact/hooks';
import type { RunDetail } from '@kairoku-playbook/protocol';
import { openStep } from './store.js';
import { duration, nowFor, stepIsActive } from './time.js';
import { startedSteps, timelineOf } from './timeline.js';

/** Above this many started steps the timeline starts folded (its rows are drawn only when opened). */
const FOLDED_ABOVE = 100;

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
            Attempts <span class="axis">(over {duration(span)})</span>
          </th>
          <th scope="col">Time</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.step}>
            <th scope="row">{row.step}</th>
            <td class="strip">
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
            </td>
            <td class="time">{row.time}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Timeline({ detail }: { detail: RunDetail }) {
  const count = startedSteps(detail.steps) + startedSteps(detail.after);
  const [unfolded, setUnfolded] = useState(count <= FOLDED_ABOVE);
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
