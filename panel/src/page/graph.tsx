/** A run's graph: the one layout, in pixels that follow the panel's width. */
import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { RunDetail, StepDetail } from '../api/api-types.js';
import { graphGeometry, layoutGraph, needsByIndex } from '../layout/index.js';
import type { LayoutStep } from '../layout/index.js';
import { stepState } from './status.js';

interface GraphProps {
  detail: RunDetail;
  onOpen: (step: string, attempt: number | null) => void;
  selected: string | null;
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

export function Graph({ detail, onOpen, selected }: GraphProps) {
  const [ref, width] = useWidth();
  const { nodes, loops } = detail.graph;
  const layout = useMemo(() => {
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
  const geometry = useMemo(() => graphGeometry(layout, width || 600), [layout, width]);
  const byName = useMemo(() => new Map(detail.steps.map((s) => [s.name, s])), [detail.steps]);
  const [focused, setFocused] = useState(0);
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);

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
    buttons.current[to]?.focus();
  };

  return (
    <div class={`graph-frame${geometry.scrolls ? ' scrolls' : ''}`} ref={ref}>
      <div
        class="graph"
        role="group"
        aria-label={`Steps of ${detail.run.title}: use the arrow keys to move between them`}
        style={{ width: `${geometry.width}px`, height: `${geometry.height}px` }}
      >
        <svg class="wires" width={geometry.width} height={geometry.height} aria-hidden="true">
          <defs>
            <marker
              id="arrow"
              viewBox="0 0 8 8"
              refX="7"
              refY="4"
              markerWidth="7"
              markerHeight="7"
              orient="auto"
            >
              <path d="M0 0 L8 4 L0 8 z" />
            </marker>
          </defs>
          {geometry.edges.map((edge) => (
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
        {layout.nodes.map((node, i) => {
          const placed = geometry.nodes[i]!;
          const step = byName.get(node.name);
          const state = stepState(step?.status);
          const earlier = (step?.attempts.length ?? 0) - 1;
          return (
            <div
              key={node.name}
              class={`node ${state} kind-${node.kind}${selected === node.name ? ' selected' : ''}`}
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
                ref={(element) => {
                  buttons.current[i] = element;
                }}
                tabIndex={i === focused ? 0 : -1}
                aria-pressed={selected === node.name}
                onClick={() => {
                  setFocused(i);
                  onOpen(node.name, null);
                }}
                onKeyDown={(event) => move(event, i)}
              >
                <span class="label">{node.label}</span>{' '}
                <span class="detail">
                  {node.detail} · {step?.status ?? 'pending'}
                </span>
              </button>
              {earlier > 0 && (
                <span class="chips">
                  {step!.attempts.slice(0, earlier).map((attempt) => (
                    <button
                      type="button"
                      class="chip"
                      tabIndex={i === focused ? 0 : -1}
                      key={attempt.attempt}
                      aria-label={`#${attempt.attempt}, earlier attempt of ${node.name}`}
                      onClick={() => onOpen(node.name, attempt.attempt)}
                    >
                      #{attempt.attempt}
                    </button>
                  ))}
                </span>
              )}
            </div>
          );
        })}
      </div>
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
