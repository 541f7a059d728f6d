/**
 * Rows of a step graph as every view of it draws them (seed "The Playbooks panel"): top to bottom, each
 * step one row below its deepest need, the steps of a row in their order in the file. The compiler puts
 * the same rows in the IR (`layout`); a run's graph from the API names needs by step name and carries no
 * rows, so they are computed here the same way.
 */

/** One step as placement needs it: the indices of the steps it needs (all before it, as the IR has them). */
export interface Placeable {
  needs: readonly number[];
  /** a row and column already computed (the IR's layout, the language server's answer) */
  row?: number;
  column?: number;
}

export interface Place {
  row: number;
  column: number;
}

/** Row and column of each step: a depth of one more than the deepest need, columns in file order. */
export function placeSteps(steps: readonly Placeable[]): Place[] {
  const places: Place[] = [];
  const columns = new Map<number, number>();
  steps.forEach((step, index) => {
    if (step.row !== undefined && step.column !== undefined) {
      places.push({ row: step.row, column: step.column });
      return;
    }
    // A need at or after the step itself would be a cycle the compiler refuses; it is ignored here so a
    // graph from another build still draws instead of looping.
    const depths = step.needs.filter((need) => need < index).map((need) => places[need]!.row);
    const row = depths.length ? Math.max(...depths) + 1 : 0;
    const column = columns.get(row) ?? 0;
    columns.set(row, column + 1);
    places.push({ row, column });
  });
  return places;
}

/** The step indices of each row, top to bottom, each row left to right. */
export function rowsOf(steps: readonly Placeable[]): number[][] {
  const places = placeSteps(steps);
  const rows: number[][] = [];
  places.forEach((place, index) => (rows[place.row] ??= []).push(index));
  return rows
    .filter((row) => row !== undefined)
    .map((row) => row.sort((a, b) => places[a]!.column - places[b]!.column));
}

/** Needs named by step name (as the API gives them) → indices; unknown names are dropped. */
export function needsByIndex(steps: readonly { name: string; needs: readonly string[] }[]): number[][] {
  const index = new Map(steps.map((step, i) => [step.name, i]));
  return steps.map((step) =>
    step.needs.map((name) => index.get(name)).filter((i): i is number => i !== undefined),
  );
}

/** `agent · role`, `check`, `gate`: a step's kind as `kairoku-playbook graph` prints it. */
export function stepCaption(step: { kind: string; role?: string | null }): string {
  if (step.kind === 'agent') return step.role ? `agent · ${step.role}` : 'agent';
  return step.kind;
}

/** `fail ×3`: a loop labelled with its outcome and its most turns. */
export function loopLabel(loop: { outcome: string; max: number }): string {
  return `${loop.outcome} ×${loop.max}`;
}

/**
 * Lanes for loops back up the graph: shorter loops nearer the graph, so lanes nest instead of crossing.
 * Returns each loop's lane (0 the nearest), in the order given.
 */
export function loopLanes(
  loops: readonly { from: number; to: number }[],
  rowOf: (step: number) => number,
): number[] {
  const order = loops
    .map((loop, index) => ({ index, span: rowOf(loop.from) - rowOf(loop.to), start: rowOf(loop.from) }))
    .sort((a, b) => a.span - b.span || a.start - b.start || a.index - b.index);
  const lanes: number[] = [];
  order.forEach(({ index }, lane) => (lanes[index] = lane));
  return lanes;
}
