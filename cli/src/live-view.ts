import type { IrStep } from '@kairoku-playbook/compiler';
import { lowerExpression } from '@kairoku-playbook/compiler';
import { parseTemplate } from '@kairoku-playbook/grammar';
import { evaluate, forTerminal, toText, vecGet, vecToArray } from '@kairoku-playbook/runtime';
import type { HistoryEntry, RunState, StepRun, StepStatus } from '@kairoku-playbook/runtime';
import { processTerminal } from './commands/terminal.js';
import { graphemeWidth, graphemes, textWidth } from './format/layout.js';
import type { Terminal } from './commands/terminal.js';

/**
 * The live view of `run` on a terminal: the run's steps as the rows of its graph (the Playbooks
 * panel's layout, seed 000: each step one row below its deepest need, parallel steps side by side),
 * each with its status, attempt and loop counts, redrawn in place as the run moves.
 *
 * `renderRunView` is pure (state in, lines out); `LiveView` owns the writing.
 */

export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'] as const;

export interface RenderOptions {
  /** spinner frame (any whole number; taken modulo the spinner's length) */
  frame: number;
  /** columns: no line is wider */
  width: number;
  color: boolean;
  /** lines at most (a terminal's rows); graph rows beyond are folded. Unlimited when absent. */
  height?: number;
  /** the clock, in ms: the elapsed time of a run still going. Absent: only an ended run shows it. */
  now?: number;
}

// ── history lines (also `run`'s line-per-event progress) ─────────────────────────────────────────

const SYMBOLS: Record<string, string> = {
  'run-started': '▶',
  'step-started': '▸',
  'step-completed': '✓',
  'step-skipped': '–',
  loop: '↺',
  'loop-counters-reset': '↺',
  'loop-exhausted': '↺',
  'step-retry': '↻',
  'step-failed': '✗',
  'step-lost': '✗',
  'agent-lost': '✗',
  'run-failed': '✗',
  'run-canceled': '✗',
  'gate-opened': '?',
  'gate-decided': '!',
  'run-completed': '✔',
};

/**
 * One history entry as a line: its symbol and text (an entry that counts repeats says how many). The
 * text may quote agents, runners and daemons, so it is made safe for a terminal (`forTerminal`) and
 * kept to one line, so it cannot pass for another entry.
 */
export function progressLine(entry: HistoryEntry): string {
  const times = entry.count ? ` (${entry.count} times)` : '';
  return `${SYMBOLS[entry.kind] ?? '·'} ${forTerminal(entry.text, { oneLine: true })}${times}`;
}

// ── styled text ──────────────────────────────────────────────────────────────────────────────────

type Style = 'green' | 'red' | 'yellow' | 'cyan' | 'dim' | 'bold';

const SGR: Record<Style, [string, string]> = {
  green: ['\x1b[32m', '\x1b[39m'],
  red: ['\x1b[31m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  bold: ['\x1b[1m', '\x1b[22m'],
};

interface Segment {
  text: string;
  style?: Style;
}
type Line = Segment[];

/**
 * The line cut to `width` columns, ending in `…` when cut; control sequences are taken out of every
 * segment (a step's reason or a title may quote an agent), line breaks and tabs become spaces.
 */
function fit(line: Line, width: number): Line {
  const clean = line.map((s) => ({ ...s, text: forTerminal(s.text, { oneLine: true }) }));
  const total = clean.reduce((sum, s) => sum + textWidth(s.text), 0);
  if (total <= width) return clean;
  const out: Line = [];
  let room = Math.max(0, width - 1);
  for (const segment of clean) {
    let text = '';
    for (const grapheme of graphemes(segment.text)) {
      const w = graphemeWidth(grapheme);
      if (w > room) break;
      text += grapheme;
      room -= w;
    }
    if (text) out.push({ ...segment, text });
    if (text.length < segment.text.length) break;
  }
  if (width >= 1) out.push({ text: '…', ...(out.at(-1)?.style ? { style: out.at(-1)!.style! } : {}) });
  return out;
}

function paint(line: Line, color: boolean): string {
  return line
    .map(({ text, style }) => (color && style ? `${SGR[style][0]}${text}${SGR[style][1]}` : text))
    .join('');
}

// ── the renderer ─────────────────────────────────────────────────────────────────────────────────

const ICONS: Partial<Record<StepStatus, string>> = {
  completed: '✓',
  failed: '✗',
  skipped: '–',
  waiting: '?',
  pending: '·',
  ready: '·',
  lost: '!',
  canceled: '!',
};

const STEP_STYLE: Partial<Record<StepStatus, Style>> = {
  running: 'cyan',
  reported: 'cyan',
  completed: 'green',
  failed: 'red',
  lost: 'red',
  waiting: 'yellow',
  pending: 'dim',
  ready: 'dim',
  skipped: 'dim',
  canceled: 'dim',
};

const RUN_STYLE: Record<RunState['status'], Style> = {
  running: 'cyan',
  paused: 'yellow',
  completed: 'green',
  failed: 'red',
  canceled: 'yellow',
};

const GAP = '   ';

/** For each step index, the loops aimed at it: their counter (STEP.OUTCOME) and most loops. */
const loopsByTarget = new WeakMap<RunState['ir'], Map<number, { counter: string; max: number }[]>>();

function loopTargets(ir: RunState['ir']): Map<number, { counter: string; max: number }[]> {
  let map = loopsByTarget.get(ir);
  if (map) return map;
  map = new Map();
  for (const s of ir.steps)
    for (const outcome of s.outcomes) {
      const t = outcome.transition;
      if (t.kind !== 'loop') continue;
      const list = map.get(t.target) ?? [];
      list.push({ counter: t.counter, max: t.max });
      map.set(t.target, list);
    }
  loopsByTarget.set(ir, map);
  return map;
}

function stepCell(run: StepRun, loops: string, frame: number): Segment {
  const icon =
    run.status === 'running' || run.status === 'reported'
      ? SPINNER[((frame % SPINNER.length) + SPINNER.length) % SPINNER.length]!
      : (ICONS[run.status] ?? '·');
  const attempt = run.attempts.at(-1)?.attempt ?? 0;
  const text = `${icon} ${run.name}${attempt > 1 ? ` #${attempt}` : ''}${loops}`;
  const style = STEP_STYLE[run.status];
  return style ? { text, style } : { text };
}

/**
 * A row of steps side by side, wrapped onto as many lines as `width` needs (a row of four parallel
 * steps on 80 columns): every step shows, none is cut for its neighbours.
 */
function cells(runs: { run: StepRun; loops: string }[], frame: number, width: number): Line[] {
  const lines: Line[] = [];
  let line: Line = [{ text: '  ' }];
  let used = 2;
  for (const { run, loops } of runs) {
    const cell = stepCell(run, loops, frame);
    const cellWidth = textWidth(forTerminal(cell.text, { oneLine: true }));
    if (line.length > 1 && used + GAP.length + cellWidth > width) {
      lines.push(line);
      line = [{ text: '  ' }];
      used = 2;
    }
    if (line.length > 1) {
      line.push({ text: GAP });
      used += GAP.length;
    }
    line.push(cell);
    used += cellWidth;
  }
  lines.push(line);
  return lines;
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

function elapsed(state: RunState, now: number | undefined): string | undefined {
  if (!state.startedAt) return undefined;
  const end = state.endedAt ? Date.parse(state.endedAt) : now;
  if (end === undefined) return undefined;
  const ms = end - Date.parse(state.startedAt);
  return Number.isFinite(ms) ? formatElapsed(ms) : undefined;
}

/**
 * The playbook's title with its `${{ }}` parts rendered from the run's inputs (`Fix issue ${{
 * inputs.issue }}` → `Fix issue 42`). The run holds secret inputs masked, so a secret never shows;
 * a title that does not parse, or an expression that fails, shows as written.
 */
export function runTitle(state: RunState): string {
  const title = state.title || state.playbook;
  if (!title.includes('${{')) return title;
  const parsed = parseTemplate(title);
  if (parsed.errors.length || !parsed.value) return title;
  try {
    return parsed.value.parts
      .map((part) =>
        part.kind === 'text'
          ? part.value
          : part.expr
            ? toText(evaluate(lowerExpression(part.expr), { inputs: state.inputs }))
            : '',
      )
      .join('');
  } catch {
    return title;
  }
}

/**
 * The run as lines for a terminal: a header (title, run id, `sim` for a simulated run, status, elapsed), one line per graph
 * row (its steps side by side), the after-tasks under "after the run", and the last history entry.
 * Pure: no I/O, no clock (pass `now`).
 */
export function renderRunView(state: RunState, options: RenderOptions): string[] {
  const { frame, width, color } = options;
  const targets = loopTargets(state.ir);

  const time = elapsed(state, options.now);
  const header: Line = [
    { text: runTitle(state), style: 'bold' },
    { text: ` · ${state.id} · ` },
    // A sim run's agents and outputs are made up: said on the first line, so no one takes them for real.
    ...(state.backend === 'sim' ? [{ text: 'sim', style: 'yellow' as const }, { text: ' · ' }] : []),
    { text: state.status, style: RUN_STYLE[state.status] },
    ...(time ? [{ text: ` · ${time}`, style: 'dim' as const }] : []),
  ];

  // Why a run failed or was canceled, under the header.
  const reason: Line[] = state.reason
    ? [[{ text: `  ${state.reason}`, style: state.status === 'failed' ? 'red' : 'yellow' }]]
    : [];

  // The graph's rows, each step at its column.
  const rows = new Map<number, IrStep[]>();
  for (const s of state.ir.steps) {
    const row = rows.get(s.layout.row) ?? [];
    row.push(s);
    rows.set(s.layout.row, row);
  }
  const graph: { line: Line; active: boolean }[] = [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .flatMap(([, steps]) => {
      const runs = steps
        .sort((a, b) => a.layout.column - b.layout.column)
        .map((s) => {
          const run = vecGet(state.steps, s.index)!;
          const loops = (targets.get(s.index) ?? [])
            .filter(({ counter }) => (state.loops[counter] ?? 0) > 0)
            .map(({ counter, max }) => ` ⟲${state.loops[counter]}/${max}`)
            .join('');
          return { run, loops };
        });
      const active = runs.some(({ run }) => run.status !== 'completed' && run.status !== 'skipped');
      return cells(runs, frame, width).map((line) => ({ line, active }));
    });

  const after: Line[] = state.after.length
    ? [
        [{ text: '  after the run', style: 'dim' }],
        ...cells(
          state.after.map((run) => ({ run, loops: '' })),
          frame,
          width,
        ),
      ]
    : [];

  const last = state.history.size ? vecGet(state.history, state.history.size - 1) : undefined;
  const footer: Line[] = last ? [[{ text: progressLine(last), style: 'dim' }]] : [];

  let graphLines = graph.map((g) => g.line);
  const budget =
    options.height === undefined
      ? Infinity
      : options.height - 1 - reason.length - after.length - footer.length;
  // A row wrapped onto several lines counts each of them (the fold's "more rows" count lines).
  if (graphLines.length > budget) graphLines = fold(graph, Math.max(3, budget));

  return [header, ...reason, ...graphLines, ...after, ...footer].map((line) =>
    paint(fit(line, width), color),
  );
}

/**
 * More graph rows than fit: keep a window of `budget` lines that starts a row before the first
 * row still going, and say how many rows are above and below it.
 */
function fold(graph: { line: Line; active: boolean }[], budget: number): Line[] {
  const inner = budget - 2;
  const firstActive = graph.findIndex((g) => g.active);
  const start = Math.max(
    0,
    Math.min((firstActive < 0 ? graph.length : firstActive) - 1, graph.length - inner),
  );
  const end = Math.min(graph.length, start + inner);
  const note = (arrow: string, n: number): Line[] =>
    n ? [[{ text: `  ${arrow} ${n} more row${n === 1 ? '' : 's'}`, style: 'dim' }]] : [];
  return [
    ...note('↑', start),
    ...graph.slice(start, end).map((g) => g.line),
    ...note('↓', graph.length - end),
  ];
}

function anyRunning(state: RunState): boolean {
  const busy = (r: StepRun) => r.status === 'running' || r.status === 'reported';
  return vecToArray(state.steps).some(busy) || state.after.some(busy);
}

// ── the live view ────────────────────────────────────────────────────────────────────────────────

export interface LiveViewOptions {
  color: boolean;
  /** the terminal's size now (it may change between frames) */
  columns?: () => number;
  rows?: () => number;
  now?: () => number;
  /** the spinner's period; 100 ms */
  intervalMs?: number;
}

/** Cursor up N lines, to column 0. */
export const cursorUp = (n: number): string => `\x1b[${n}F`;
/** Erase the whole line. */
export const CLEAR_LINE = '\x1b[2K';
/** Erase from the cursor to the end of the screen. */
export const CLEAR_BELOW = '\x1b[J';

/**
 * Draws the run in place on a terminal: each `update` redraws the frame over the previous one
 * (cursor up by its line count, each line cleared and written), a spinner ticks while a step runs,
 * `pause` leaves the frame on screen and stops drawing (for a prompt below it), `resume` starts a
 * new frame below whatever was written meanwhile, `close` draws the last frame and stops.
 */
export class LiveView {
  private state: RunState | undefined;
  private frame = 0;
  /** lines of the frame on screen, which the next draw replaces; 0 after a pause */
  private drawn = 0;
  private paused = false;
  private closed = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  /** while paused: the frame's line count, the terminal rows written below it, the header shown */
  private held: { lines: number; below: number; header: string } | undefined;
  private headerTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly out: { write(text: string): void },
    private readonly options: LiveViewOptions,
  ) {}

  update(state: RunState): void {
    if (this.closed) return;
    if (this.state) this.frame++;
    this.state = state;
    if (this.paused) return;
    this.draw();
    this.tick();
  }

  /**
   * Before a prompt: the frame stays on screen as it is and is not redrawn until `resume`, but for its
   * header, whose elapsed time keeps ticking (rewritten in place above the prompt, while the header is
   * still on the screen). What the prompt writes goes through `below`, which counts its rows.
   */
  pause(): void {
    if (this.paused || this.closed) return;
    this.draw();
    this.paused = true;
    this.held = { lines: this.drawn, below: 0, header: this.lastLines[0] ?? '' };
    this.drawn = 0;
    this.stopTimer();
    if (this.options.now && !this.headerTimer) {
      this.headerTimer = setInterval(() => this.tickHeader(), 1000);
      this.headerTimer.unref?.();
    }
  }

  /** After a prompt: a new frame, below it. */
  resume(): void {
    if (!this.paused || this.closed) return;
    this.paused = false;
    this.stopHeader();
    this.draw();
    this.tick();
  }

  /**
   * The terminal as a prompt below the paused frame uses it: what it writes, asks and is answered is
   * counted in terminal rows, so the header above can be found and rewritten.
   */
  below<T extends { write(text: string): void; ask(question: string): string | undefined }>(terminal: T): T {
    const count = (text: string) => this.wrote(text);
    return {
      ...terminal,
      write: (text: string) => {
        terminal.write(text);
        count(text);
      },
      ask: (question: string) => {
        const answer = terminal.ask(question);
        count(`${question}${answer ?? ''}\n`);
        return answer;
      },
      ...('askAsync' in terminal && typeof terminal.askAsync === 'function'
        ? {
            askAsync: async (question: string, signal: AbortSignal) => {
              const answer = await (
                terminal.askAsync as (q: string, s: AbortSignal) => Promise<string | undefined>
              )(question, signal);
              count(`${question}${answer ?? ''}\n`);
              return answer;
            },
          }
        : {}),
    };
  }

  /** Rows written below the paused frame (a prompt's text, a typed answer and its line break). */
  wrote(text: string): void {
    if (!this.held) return;
    const columns = Math.max(20, this.options.columns?.() ?? 80);
    const lines = text.split('\n');
    // Each finished line takes its width in rows (at least one); the unfinished last one takes none yet.
    for (const line of lines.slice(0, -1))
      this.held.below += Math.max(1, Math.ceil(textWidth(forTerminal(line, { oneLine: true })) / columns));
  }

  /**
   * The paused frame's header with the elapsed time now, written over the old one (cursor saved,
   * moved up, restored), so the timer ticks while a gate waits; nothing when it has scrolled away.
   */
  tickHeader(): void {
    const held = this.held;
    if (!held || !this.state || this.closed) return;
    const header = this.render()[0] ?? '';
    if (header === held.header) return;
    const up = held.lines + held.below;
    const rows = this.options.rows?.() ?? 24;
    if (up >= rows) return;
    held.header = header;
    this.out.write(`\x1b7${cursorUp(up)}${CLEAR_LINE}${header}\x1b8`);
  }

  private stopHeader(): void {
    if (this.headerTimer) clearInterval(this.headerTimer);
    this.headerTimer = undefined;
    this.held = undefined;
  }

  /** The last frame, and no more drawing; the cursor is left on the line after it. */
  close(): void {
    if (this.closed) return;
    this.paused = false;
    this.stopHeader();
    this.draw();
    this.closed = true;
    this.stopTimer();
  }

  /** the frame last drawn */
  private lastLines: string[] = [];

  private render(): string[] {
    return renderRunView(this.state!, {
      frame: this.frame,
      width: Math.max(20, this.options.columns?.() ?? 80),
      color: this.options.color,
      ...(this.options.rows ? { height: Math.max(8, this.options.rows() - 1) } : {}),
      ...(this.options.now ? { now: this.options.now() } : {}),
    });
  }

  private draw(): void {
    if (!this.state || this.paused) return;
    const lines = this.render();
    this.lastLines = lines;
    const up = this.drawn ? cursorUp(this.drawn) : '';
    this.out.write(`${up}${lines.map((line) => `${CLEAR_LINE}${line}\n`).join('')}${CLEAR_BELOW}`);
    this.drawn = lines.length;
  }

  private tick(): void {
    const running = this.state !== undefined && anyRunning(this.state);
    if (running && !this.timer) {
      this.timer = setInterval(() => {
        this.frame++;
        this.draw();
      }, this.options.intervalMs ?? 100);
      this.timer.unref?.();
    } else if (!running) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

// ── the process's terminal, live ─────────────────────────────────────────────────────────────────

/** A terminal that can be drawn on in place: `run` shows the live view there. */
export interface LiveTerminal extends Terminal {
  screen: { columns(): number; rows(): number };
}

export function isLiveTerminal(terminal: Terminal | undefined): terminal is LiveTerminal {
  return terminal !== undefined && 'screen' in terminal;
}

/**
 * The process's terminal (see `processTerminal`), live unless `TERM=dumb`. Undefined without a
 * terminal, so pipes and CI logs keep the line-per-event progress.
 */
export function processLiveTerminal(): Terminal | undefined {
  const terminal = processTerminal();
  if (!terminal || process.env.TERM === 'dumb') return terminal;
  const live: LiveTerminal = {
    ...terminal,
    screen: { columns: () => process.stdout.columns || 80, rows: () => process.stdout.rows || 24 },
  };
  return live;
}
