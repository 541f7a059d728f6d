/** A run's graph: the one step graph (../graph), each node in its step's state, each loop with its count. */
import { useMemo } from 'preact/hooks';
import type { RunDetail, StepDetail } from '@kairoku-playbook/protocol';
import { layoutGraph, needsByIndex } from '../layout/index.js';
import type { GraphNode, LayoutStep } from '../layout/index.js';
import { StepGraph } from '../graph/step-graph.js';
import type { NodeLook } from '../graph/step-graph.js';
import { stepState } from './status.js';
import { duration, nowFor, stepDuration, stepIsActive } from './time.js';

interface GraphProps {
  detail: RunDetail;
  onOpen: (step: string, attempt: number | null) => void;
  selected: string | null;
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
  const layout = useLayout(detail);
  const byName = useMemo(() => new Map(detail.steps.map((s) => [s.name, s])), [detail.steps]);
  const look = (node: GraphNode): NodeLook => stepLook(node, byName.get(node.name));
  return (
    <StepGraph
      layout={layout}
      label={`Steps of ${detail.run.title}`}
      look={look}
      loopLabel={(loop) => `${loop.outcome} ${loop.count}/${loop.max}`}
      onOpen={(node, attempt) => onOpen(node.name, attempt)}
      selected={selected}
    />
  );
}

/** A step's node in the run: its status, its time (ticking while active) and its earlier attempts. */
function stepLook(node: GraphNode, step: StepDetail | undefined): NodeLook {
  const status = step?.status ?? 'pending';
  const earlier = (step?.attempts.length ?? 0) - 1;
  return {
    state: stepState(step?.status),
    status,
    detail: `${node.detail} · ${status}`,
    extra: <StepTime step={step} />,
    earlier: earlier > 0 ? step!.attempts.slice(0, earlier).map((a) => a.attempt) : [],
  };
}

/** A step's time on its node: ticking while it is active. */
function StepTime({ step }: { step: StepDetail | undefined }) {
  if (!step) return null;
  const now = stepIsActive(step.status) ? nowFor(step.attempts[0]?.startedAt) : Date.now();
  const took = stepDuration(step.attempts, step.status, now);
  // its own span, which keeps its width when a narrow node cuts the kind and status short
  return took === null ? null : <span class="time">&nbsp;· {duration(took)}</span>;
}
