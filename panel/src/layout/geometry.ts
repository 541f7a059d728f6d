/**
 * The panel's graph in pixels: nodes that widen with the panel from 132 to 240 px (seed "The Playbooks
 * panel"), sideways scrolling only when even the narrowest nodes do not fit, connector lines from each
 * need down to its step, and loop lanes to the right of the graph.
 */
import type { GraphLayout, LayoutLoopInput } from './graph-layout.js';

export const PANEL_METRICS = {
  minNodeWidth: 132,
  maxNodeWidth: 240,
  nodeHeight: 52,
  /** between two nodes side by side */
  columnGap: 16,
  /** between the bottom of a row and the top of the next */
  rowGap: 36,
  /** each loop lane to the right of the graph */
  laneWidth: 28,
  padding: 12,
} as const;

export interface PlacedNode {
  index: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge {
  from: number;
  to: number;
  /** an SVG path: from the bottom centre of the need to the top centre of the step */
  path: string;
}

export interface PlacedLoop {
  from: number;
  to: number;
  lane: number;
  /** an SVG path: out of the right of `from`, up the lane, into the right of `to` */
  path: string;
  labelX: number;
  labelY: number;
}

export interface GraphGeometry {
  nodeWidth: number;
  width: number;
  height: number;
  /** the graph is wider than the space given: the page scrolls sideways */
  scrolls: boolean;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  loops: PlacedLoop[];
}

/** Lays out `layout` in `available` pixels of width. */
export function graphGeometry<L extends LayoutLoopInput>(
  layout: GraphLayout<L>,
  available: number,
  metrics: typeof PANEL_METRICS = PANEL_METRICS,
): GraphGeometry {
  const m = metrics;
  const lanes = layout.loops.length ? layout.loops.length * m.laneWidth + m.columnGap : 0;
  const fixed = 2 * m.padding + lanes + (layout.width - 1) * m.columnGap;
  const fitting = Math.floor((available - fixed) / layout.width);
  const nodeWidth = Math.max(m.minNodeWidth, Math.min(m.maxNodeWidth, fitting));
  const cell = nodeWidth + m.columnGap;
  const graphWidth = layout.width * cell - m.columnGap;
  const width = 2 * m.padding + graphWidth + lanes;
  const rowPitch = m.nodeHeight + m.rowGap;
  const height = 2 * m.padding + Math.max(0, layout.rows * rowPitch - m.rowGap);

  const byIndex = new Map<number, PlacedNode>();
  const nodes = layout.nodes.map((node) => {
    const placed = {
      index: node.index,
      // a node spans two half-slots of half a cell each
      x: m.padding + (node.slot * cell) / 2,
      y: m.padding + node.row * rowPitch,
      width: nodeWidth,
      height: m.nodeHeight,
    };
    byIndex.set(node.index, placed);
    return placed;
  });

  const edges: PlacedEdge[] = [];
  for (const { from, to } of layout.edges) {
    const a = byIndex.get(from);
    const b = byIndex.get(to);
    if (!a || !b) continue;
    const x1 = a.x + a.width / 2;
    const y1 = a.y + a.height;
    const x2 = b.x + b.width / 2;
    const y2 = b.y;
    const bend = Math.min(m.rowGap, (y2 - y1) / 2);
    edges.push({ from, to, path: `M${x1} ${y1} C${x1} ${y1 + bend} ${x2} ${y2 - bend} ${x2} ${y2}` });
  }

  const loops: PlacedLoop[] = [];
  const right = m.padding + graphWidth;
  for (const loop of layout.loops) {
    const a = byIndex.get(loop.from);
    const b = byIndex.get(loop.to);
    if (!a || !b) continue;
    const laneX = right + m.columnGap + loop.lane * m.laneWidth + m.laneWidth / 2;
    const yOut = a.y + (a.height * 2) / 3;
    const yBack = b.y + b.height / 3;
    loops.push({
      from: loop.from,
      to: loop.to,
      lane: loop.lane,
      path: `M${a.x + a.width} ${yOut} H${laneX} V${yBack} H${b.x + b.width}`,
      labelX: laneX,
      labelY: (yOut + yBack) / 2,
    });
  }

  return { nodeWidth, width, height, scrolls: width > available, nodes, edges, loops };
}
