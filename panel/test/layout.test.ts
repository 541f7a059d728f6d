import { describe, expect, it } from 'vitest';
import {
  PANEL_METRICS,
  graphGeometry,
  layoutGraph,
  loopLanes,
  needsByIndex,
  placeSteps,
  rowsOf,
} from '@kairoku-playbook/panel/layout';
import type { LayoutStep } from '@kairoku-playbook/panel/layout';

/** Steps named by letter with needs by name, as a run's graph from the API has them. */
function steps(spec: Record<string, string[]>): LayoutStep[] {
  const list = Object.entries(spec).map(([name, needs]) => ({ name, needs }));
  const needs = needsByIndex(list);
  return list.map((step, index) => ({ index, name: step.name, kind: 'agent', needs: needs[index]! }));
}

describe('placeSteps and rowsOf', () => {
  it('puts each step one row below its deepest need, columns in file order', () => {
    const graph = steps({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'], e: ['a', 'd'], f: [] });
    expect(placeSteps(graph)).toEqual([
      { row: 0, column: 0 },
      { row: 1, column: 0 },
      { row: 1, column: 1 },
      { row: 2, column: 0 },
      { row: 3, column: 0 },
      { row: 0, column: 1 },
    ]);
    expect(rowsOf(graph)).toEqual([[0, 5], [1, 2], [3], [4]]);
  });

  it('keeps rows and columns already computed (the IR, the language server)', () => {
    expect(
      rowsOf([
        { needs: [], row: 0, column: 1 },
        { needs: [], row: 0, column: 0 },
      ]),
    ).toEqual([[1, 0]]);
  });

  it('ignores a need that is not before the step instead of looping', () => {
    expect(placeSteps([{ needs: [1] }, { needs: [0] }])).toEqual([
      { row: 0, column: 0 },
      { row: 1, column: 0 },
    ]);
  });

  it('drops needs on names it does not know', () => {
    expect(needsByIndex([{ name: 'a', needs: ['zz'] }])).toEqual([[]]);
  });
});

describe('layoutGraph', () => {
  it('centres a row under the widest, in half-slots', () => {
    const layout = layoutGraph({
      steps: steps({ a: [], b: ['a'], c: ['a'], d: ['a'], e: ['b', 'c', 'd'] }),
      loops: [],
    });
    expect(layout.width).toBe(3);
    expect(layout.rows).toBe(3);
    expect(layout.nodes.map((n) => [n.name, n.slot, n.center])).toEqual([
      ['a', 2, 0.5],
      ['b', 0, 1 / 6],
      ['c', 2, 0.5],
      ['d', 4, 5 / 6],
      ['e', 2, 0.5],
    ]);
    expect(layout.edges).toEqual([
      { from: 0, to: 1 },
      { from: 0, to: 2 },
      { from: 0, to: 3 },
      { from: 1, to: 4 },
      { from: 2, to: 4 },
      { from: 3, to: 4 },
    ]);
  });

  it('nests loop lanes: the shortest nearest the graph, and labels them', () => {
    const graph = steps({ a: [], b: ['a'], c: ['b'], d: ['c'] });
    const layout = layoutGraph({
      steps: graph,
      loops: [
        { from: 3, to: 0, outcome: 'redo', max: 2, count: 1 },
        { from: 2, to: 1, outcome: 'fail', max: 3, count: 0 },
      ],
    });
    expect(layout.loops.map((l) => [l.outcome, l.lane, l.label, l.count])).toEqual([
      ['fail', 0, 'fail ×3', 0],
      ['redo', 1, 'redo ×2', 1],
    ]);
    expect(loopLanes([{ from: 1, to: 0 }], () => 0)).toEqual([0]);
  });
});

describe('graphGeometry', () => {
  const layout = layoutGraph({ steps: steps({ a: [], b: ['a'], c: ['a'] }), loops: [] });
  const fixed = 2 * PANEL_METRICS.padding + PANEL_METRICS.columnGap;

  it('widens nodes with the panel from 132 to 240 px, and scrolls only when 132 does not fit', () => {
    expect(graphGeometry(layout, fixed + 2 * 200).nodeWidth).toBe(200);
    expect(graphGeometry(layout, fixed + 2 * 200).scrolls).toBe(false);
    expect(graphGeometry(layout, 4000).nodeWidth).toBe(240);
    expect(graphGeometry(layout, 4000).scrolls).toBe(false);
    const narrow = graphGeometry(layout, fixed + 2 * 132);
    expect([narrow.nodeWidth, narrow.scrolls]).toEqual([132, false]);
    const tooNarrow = graphGeometry(layout, fixed + 2 * 132 - 1);
    expect([tooNarrow.nodeWidth, tooNarrow.scrolls]).toEqual([132, true]);
  });

  it('draws a connector from the bottom centre of a need to the top centre of its step', () => {
    const g = graphGeometry(layout, 600);
    const [a, b] = g.nodes;
    expect(g.edges[0]!.path.startsWith(`M${a!.x + a!.width / 2} ${a!.y + a!.height} `)).toBe(true);
    expect(g.edges[0]!.path.endsWith(` ${b!.x + b!.width / 2} ${b!.y}`)).toBe(true);
    expect(b!.y).toBe(a!.y + PANEL_METRICS.nodeHeight + PANEL_METRICS.rowGap);
  });

  it('puts loop lanes to the right of every node', () => {
    const looped = layoutGraph({
      steps: steps({ a: [], b: ['a'] }),
      loops: [{ from: 1, to: 0, outcome: 'again', max: 2 }],
    });
    const g = graphGeometry(looped, 800);
    const right = Math.max(...g.nodes.map((n) => n.x + n.width));
    expect(g.loops[0]!.labelX).toBeGreaterThan(right);
    expect(g.width).toBeGreaterThan(g.loops[0]!.labelX);
  });
});
