/**
 * The one drawing of a step graph: the panel's run view, the playground and the VS Code extension's graph
 * view all render this component (over the one layout of ../layout), so a step looks and behaves the same
 * wherever an author or an operator meets it. What differs between them comes in as props: a node's state
 * and detail (a run's status and time, or nothing before a run), the loops' labels, what opening a step does.
 */
import type { ComponentChildren, RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { PANEL_METRICS, graphGeometry } from '../layout/index.js';
import type { GraphGeometry, GraphLayout, GraphNode, LayoutLoopInput } from '../layout/index.js';

/** How one node is shown: its state and the words after its kind. */
export interface NodeLook {
  /** a class for its state: `completed`, `failed`, `waiting`, `running`, `unreached`, `planned`, … */
  state: string;
  /** the detail line (the kind, and for a run its status) */
  detail: string;
  /** `data-status` of its button, for a run */
  status?: string;
  /** after the detail, kept whole when a narrow node cuts the detail short (a run's ticking time) */
  extra?: ComponentChildren;
  /** the numbers of earlier attempts, each a small button that opens that attempt */
  earlier?: readonly number[];
}

export interface StepGraphProps<L extends LayoutLoopInput> {
  layout: GraphLayout<L>;
  /** the graph's accessible name */
  label: string;
  /** the look of each node; default: the playbook's own words, no state */
  look?: (node: GraphNode) => NodeLook;
  /** the text beside each loop's lane; default: the layout's label (`fail ≤ 3`) */
  loopLabel?: (loop: GraphLayout<L>['loops'][number], index: number) => string;
  /** a step (attempt null) or one of its earlier attempts was opened */
  onOpen?: (step: GraphNode, attempt: number | null) => void;
  selected?: string | null;
}

/** A node before any run: the playbook's words (its name beside a title, its condition), no state. */
export function plannedLook(node: GraphNode): NodeLook {
  const named = node.label === node.name ? node.detail : `${node.name} · ${node.detail}`;
  return { state: 'planned', detail: node.when ? `${named} · when ${node.when}` : named };
}

/**
 * Above this many steps only the rows near the window are drawn (and the focused step): a 2,000-step
 * graph drawn whole costs seconds of style and layout, and nobody sees more than a few dozen rows.
 */
const WINDOWED_ABOVE = 300;
const MARGIN_ROWS = 6;

/** The rows of the graph in or near the window, or null when every row is drawn. */
function useVisibleRows(
  frame: RefObject<HTMLDivElement | null>,
  windowed: boolean,
): { first: number; last: number } | null {
  const [rows, setRows] = useState<{ first: number; last: number } | null>(
    windowed ? { first: 0, last: 20 } : null,
  );
  useEffect(() => {
    if (!windowed) {
      setRows(null);
      return;
    }
    const pitch = PANEL_METRICS.nodeHeight + PANEL_METRICS.rowGap;
    let scheduled = 0;
    const measure = () => {
      scheduled = 0;
      const element = frame.current;
      if (!element) return;
      const top = element.getBoundingClientRect().top;
      const first = Math.max(0, Math.floor((-top - PANEL_METRICS.padding) / pitch) - MARGIN_ROWS);
      const last = Math.ceil((window.innerHeight - top) / pitch) + MARGIN_ROWS;
      setRows((old) => (old && old.first === first && old.last === last ? old : { first, last }));
    };
    const schedule = () => {
      if (!scheduled) scheduled = requestAnimationFrame(measure);
    };
    measure();
    window.addEventListener('scroll', schedule, { passive: true, capture: true });
    window.addEventListener('resize', schedule);
    return () => {
      cancelAnimationFrame(scheduled);
      window.removeEventListener('scroll', schedule, { capture: true });
      window.removeEventListener('resize', schedule);
    };
  }, [windowed]);
  return rows;
}

/** The container's width, kept up to date as it is resized. */
function useWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** Where the arrow keys, Home and End move from step `at` (of `count`), or -1 for another key. */
function keyTarget(key: string, at: number, count: number): number {
  if (key === 'ArrowRight' || key === 'ArrowDown') return Math.min(count - 1, at + 1);
  if (key === 'ArrowLeft' || key === 'ArrowUp') return Math.max(0, at - 1);
  if (key === 'Home') return 0;
  if (key === 'End') return count - 1;
  return -1;
}

/** The steps as a roving-tabindex group: one tab stop, the arrow keys move between steps. */
function useRovingFocus(count: number) {
  const [focused, setFocused] = useState(0);
  const [focusPending, setFocusPending] = useState(false);
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  // A step reached with the arrow keys may not have been drawn yet: focus it once it is.
  useEffect(() => {
    if (!focusPending) return;
    setFocusPending(false);
    buttons.current[focused]?.focus();
    buttons.current[focused]?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [focusPending, focused]);
  const move = (event: KeyboardEvent, at: number) => {
    const to = keyTarget(event.key, at, count);
    if (to < 0) return;
    event.preventDefault();
    setFocused(to);
    setFocusPending(true);
  };
  return { focused, setFocused, buttons, move };
}

export function StepGraph<L extends LayoutLoopInput>(props: StepGraphProps<L>) {
  const { layout, look = plannedLook, onOpen, selected = null } = props;
  const [ref, width] = useWidth();
  const geometry = useMemo(() => graphGeometry(layout, width || 600), [layout, width]);
  const focus = useRovingFocus(layout.nodes.length);
  const rows = useVisibleRows(ref, layout.nodes.length > WINDOWED_ABOVE);
  const byIndex = useMemo(() => new Map(layout.nodes.map((n) => [n.index, n])), [layout]);
  const rowOf = (index: number) => byIndex.get(index)?.row ?? 0;
  const shown = (i: number) =>
    rows === null ||
    i === focus.focused ||
    (layout.nodes[i]!.row >= rows.first && layout.nodes[i]!.row <= rows.last);
  const edges =
    rows === null
      ? geometry.edges
      : geometry.edges.filter((e) => rowOf(e.from) <= rows.last && rowOf(e.to) >= rows.first);
  const loopLabel = props.loopLabel ?? ((loop) => loop.label);
  return (
    <div class={`graph-frame${geometry.scrolls ? ' scrolls' : ''}`} ref={ref}>
      <div
        class="graph"
        role="group"
        aria-label={`${props.label}: use the arrow keys to move between them`}
        style={{ width: `${geometry.width}px`, height: `${geometry.height}px` }}
      >
        <Wires geometry={geometry} edges={edges} labels={layout.loops.map(loopLabel)} />
        {layout.nodes.map((node, i) =>
          shown(i) ? (
            <StepNode
              key={node.name}
              node={node}
              look={look(node)}
              placed={geometry.nodes[i]!}
              selected={selected === node.name}
              focusable={i === focus.focused}
              buttonRef={(element) => {
                focus.buttons.current[i] = element;
              }}
              onOpen={(attempt) => {
                if (attempt === null) focus.setFocused(i);
                onOpen?.(node, attempt);
              }}
              onKeyDown={(event) => focus.move(event, i)}
            />
          ) : null,
        )}
      </div>
    </div>
  );
}

/** The needs' lines and the loops' lanes with their labels. */
function Wires(props: { geometry: GraphGeometry; edges: GraphGeometry['edges']; labels: string[] }) {
  const { geometry, edges, labels } = props;
  return (
    <svg class="wires" width={geometry.width} height={geometry.height} aria-hidden="true">
      <defs>
        <marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto">
          <path d="M0 0 L8 4 L0 8 z" />
        </marker>
      </defs>
      {edges.map((edge) => (
        <path key={`${edge.from}-${edge.to}`} class="need" d={edge.path} />
      ))}
      {geometry.loops.map((loop, i) => (
        <g key={`loop-${i}`} class="loop">
          <path d={loop.path} marker-end="url(#arrow)" />
          <text x={loop.labelX} y={loop.labelY} transform={`rotate(-90 ${loop.labelX} ${loop.labelY})`}>
            {labels[i]}
          </text>
        </g>
      ))}
    </svg>
  );
}

interface StepNodeProps {
  node: GraphNode;
  look: NodeLook;
  placed: GraphGeometry['nodes'][number];
  selected: boolean;
  focusable: boolean;
  buttonRef: (element: HTMLButtonElement | null) => void;
  onOpen: (attempt: number | null) => void;
  onKeyDown: (event: KeyboardEvent) => void;
}

function StepNode({ node, look, placed, selected, focusable, buttonRef, onOpen, onKeyDown }: StepNodeProps) {
  return (
    <div
      class={`node ${look.state} kind-${node.kind}${selected ? ' selected' : ''}`}
      style={{
        left: `${placed.x}px`,
        top: `${placed.y}px`,
        width: `${placed.width}px`,
        height: `${placed.height}px`,
      }}
    >
      <button
        type="button"
        class="node-button"
        data-step={node.name}
        data-status={look.status}
        title={node.tooltip}
        ref={buttonRef}
        tabIndex={focusable ? 0 : -1}
        aria-pressed={selected}
        onClick={() => onOpen(null)}
        onKeyDown={onKeyDown}
      >
        <span class="label">{node.label}</span>{' '}
        <span class="detail">
          <span class="what">{look.detail}</span>
          {look.extra}
        </span>
      </button>
      {look.earlier?.length ? (
        <span class="chips">
          {look.earlier.map((attempt) => (
            <button
              type="button"
              class="chip"
              tabIndex={focusable ? 0 : -1}
              key={attempt}
              aria-label={`#${attempt}, earlier attempt of ${node.name}`}
              onClick={() => onOpen(attempt)}
            >
              #{attempt}
            </button>
          ))}
        </span>
      ) : null}
    </div>
  );
}
