/** A run's graph: the one layout, in pixels that follow the panel's width. */
import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { RunDetail, StepDetail } from '@kairoku-playbook/protocol';
import { PANEL_METRICS, graphGeometry, layoutGraph, needsByIndex } from '../layout/index.js';
import type { LayoutStep } from '../layout/index.js';
import { stepState } from './status.js';
import { duration, nowFor, stepDuration, stepIsActive } from './time.js';

interface GraphProps {
  detail: RunDetail;
  onOpen: (step: string, attempt: number | null) => void;
  selected: string | null;
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

/** The container's width, kept up to date as the panel is resized. */
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

/** The one layout of the run's steps (after-tasks apart), computed again only when the graph changes. */
function useLayout(detail: RunDetail) {
  const { nodes, loops } = detail.graph;
  return useMemo(() => {
    const steps = nodes.filter((node) => !node.after);
    const needs = needsByIndex(steps);
    const index = new Map(steps.map((node, i) => [node.name, i]));
    const layoutSteps: LayoutStep[] = steps.map((node, i) => ({
      index: i,
      name: node.name,
      kind: node.kind,
      needs: needs[i]!,
    }));
    const known = loops.filter((loop) => index.has(loop.from) && index.has(loop.to));
    return layoutGraph({
      steps: layoutSteps,
      loops: known.map((loop) => ({ ...loop, from: index.get(loop.from)!, to: index.get(loop.to)! })),
    });
  }, [nodes, loops]);
}

export function Graph({ detail, onOpen, selected }: GraphProps) {
  const [ref, width] = useWidth();
  const layout = useLayout(detail);
  const geometry = useMemo(() => graphGeometry(layout, width || 600), [layout, width]);
  const byName = useMemo(() => new Map(detail.steps.map((s) => [s.name, s])), [detail.steps]);
  const [focused, setFocused] = useState(0);
  const [focusPending, setFocusPending] = useState(false);
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const rows = useVisibleRows(ref, layout.nodes.length > WINDOWED_ABOVE);
  const rowOf = (index: number) => layout.nodes[index]?.row ?? 0;
  const shown = (i: number) =>
    rows === null || i === focused || (rowOf(i) >= rows.first && rowOf(i) <= rows.last);
  const byIndex = useMemo(() => new Map(layout.nodes.map((n) => [n.index, n])), [layout]);
  const edges =
    rows === null
      ? geometry.edges
      : geometry.edges.filter(
          (e) => (byIndex.get(e.from)?.row ?? 0) <= rows.last && (byIndex.get(e.to)?.row ?? 0) >= rows.first,
        );
  // A step reached with the arrow keys may not have been drawn yet: focus it once it is.
  useEffect(() => {
    if (!focusPending) return;
    setFocusPending(false);
    buttons.current[focused]?.focus();
    buttons.current[focused]?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [focusPending, focused]);

  const move = (event: KeyboardEvent, at: number) => {
    const last = layout.nodes.length - 1;
    const to =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? Math.min(last, at + 1)
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? Math.max(0, at - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? last
              : -1;
    if (to < 0) return;
    event.preventDefault();
    setFocused(to);
    setFocusPending(true);
  };

  return (
    <div class={`graph-frame${geometry.scrolls ? ' scrolls' : ''}`} ref={ref}>
      <div
        class="graph"
        role="group"
        aria-label={`Steps of ${detail.run.title}: use the arrow keys to move between them`}
        style={{ width: `${geometry.width}px`, height: `${geometry.height}px` }}
      >
        <Wires detail={detail} layout={layout} geometry={geometry} edges={edges} />
        {layout.nodes.map((node, i) =>
          shown(i) ? (
            <GraphNode
              key={node.name}
              node={node}
              placed={geometry.nodes[i]!}
              step={byName.get(node.name)}
              selected={selected === node.name}
              focusable={i === focused}
              buttonRef={(element) => {
                buttons.current[i] = element;
              }}
              onOpen={(attempt) => {
                if (attempt === null) setFocused(i);
                onOpen(node.name, attempt);
              }}
              onKeyDown={(event) => move(event, i)}
            />
          ) : null,
        )}
      </div>
    </div>
  );
}

type Layout = ReturnType<typeof layoutGraph>;
type Geometry = ReturnType<typeof graphGeometry>;

/** The needs' lines and the loops' lanes with their counts. */
function Wires(props: { detail: RunDetail; layout: Layout; geometry: Geometry; edges: Geometry['edges'] }) {
  const { detail, layout, geometry, edges } = props;
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
      {geometry.loops.map((loop, i) => {
        const info = layout.loops[i]!;
        return (
          <g key={`loop-${i}`} class="loop">
            <path d={loop.path} marker-end="url(#arrow)" />
            <text x={loop.labelX} y={loop.labelY} transform={`rotate(-90 ${loop.labelX} ${loop.labelY})`}>
              {`${info.outcome} ${loopCount(detail, info.outcome, info.from, info.to)}/${info.max}`}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** A step's time on its node: ticking while it is active. */
function StepTime({ step }: { step: StepDetail | undefined }) {
  if (!step) return null;
  const now = stepIsActive(step.status) ? nowFor(step.attempts[0]?.startedAt) : Date.now();
  const took = stepDuration(step.attempts, step.status, now);
  // its own span, which keeps its width when a narrow node cuts the kind and status short
  return took === null ? null : <span class="time">&nbsp;· {duration(took)}</span>;
}

interface GraphNodeProps {
  node: Layout['nodes'][number];
  placed: Geometry['nodes'][number];
  step: StepDetail | undefined;
  selected: boolean;
  focusable: boolean;
  buttonRef: (element: HTMLButtonElement | null) => void;
  onOpen: (attempt: number | null) => void;
  onKeyDown: (event: KeyboardEvent) => void;
}

function GraphNode({
  node,
  placed,
  step,
  selected,
  focusable,
  buttonRef,
  onOpen,
  onKeyDown,
}: GraphNodeProps) {
  const state = stepState(step?.status);
  const earlier = (step?.attempts.length ?? 0) - 1;
  return (
    <div
      class={`node ${state} kind-${node.kind}${selected ? ' selected' : ''}`}
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
        data-status={step?.status ?? 'pending'}
        ref={buttonRef}
        tabIndex={focusable ? 0 : -1}
        aria-pressed={selected}
        onClick={() => onOpen(null)}
        onKeyDown={onKeyDown}
      >
        <span class="label">{node.label}</span>{' '}
        <span class="detail">
          <span class="what">
            {node.detail} · {step?.status ?? 'pending'}
          </span>
          <StepTime step={step} />
        </span>
      </button>
      {earlier > 0 && (
        <span class="chips">
          {step!.attempts.slice(0, earlier).map((attempt) => (
            <button
              type="button"
              class="chip"
              tabIndex={focusable ? 0 : -1}
              key={attempt.attempt}
              aria-label={`#${attempt.attempt}, earlier attempt of ${node.name}`}
              onClick={() => onOpen(attempt.attempt)}
            >
              #{attempt.attempt}
            </button>
          ))}
        </span>
      )}
    </div>
  );
}

/** How many times a loop has turned: the API's count. */
function loopCount(detail: RunDetail, outcome: string, from: number, to: number): number {
  const steps = detail.graph.nodes.filter((node) => !node.after);
  const loop = detail.graph.loops.find(
    (l) => l.outcome === outcome && l.from === steps[from]?.name && l.to === steps[to]?.name,
  );
  return loop?.count ?? 0;
}

export type { StepDetail };
