import { toText } from '../expr/evaluate.js';
import type { Exploration } from './explore.js';
import type { Model, Move } from './model.js';
import type { RunState } from '../core/state.js';

/** One move of a path, in words, with the unit it is about (undefined for the start). */
export interface PathEvent {
  unit: number | undefined;
  text: string;
}

/**
 * A path of moves in words: `qa reports fail: loop back to implement (qa.fail 1 of 3)`. The moves are
 * replayed from the start with the transition function, so the words say what it did.
 */
export function describePath(model: Model, path: readonly Move[]): PathEvent[] {
  const events: PathEvent[] = [];
  let state: RunState | undefined;
  for (const move of path) {
    const applied = model.apply(state, move);
    if ('error' in applied) {
      events.push({ unit: 'unit' in move ? move.unit : undefined, text: `(refused: ${applied.error})` });
      break;
    }
    state = applied.state;
    const consequences: string[] = [];
    for (const entry of applied.history) {
      switch (entry.kind) {
        case 'loop':
          consequences.push(entry.text.slice(entry.text.indexOf(': ') + 2));
          break;
        case 'loop-exhausted':
          consequences.push(entry.text);
          break;
        case 'step-retry': {
          const which = /\(retry \d+ of \d+\)/.exec(entry.text);
          consequences.push(`${entry.step} retries${which ? ` ${which[0]}` : ''}`);
          break;
        }
        case 'step-stopped':
          consequences.push(`${entry.step} is stopped`);
          break;
        case 'step-skipped':
          consequences.push(`${entry.step} is skipped`);
          break;
        case 'run-completed':
          consequences.push('the run completes');
          break;
        case 'run-failed':
          consequences.push('the run fails');
          break;
      }
    }
    const said = sayMove(model, move);
    events.push({
      unit: 'unit' in move ? move.unit : undefined,
      text: consequences.length ? `${said}: ${consequences.join(', ')}` : said,
    });
  }
  return events;
}

export function sayMove(model: Model, move: Move): string {
  switch (move.kind) {
    case 'start': {
      const inputs = model.inputs[move.variant]!;
      const shown = model.readInputs.map(
        (name) => `${name}=${name in inputs ? show(inputs[name]) : '(none)'}`,
      );
      return shown.length ? `the run starts with ${shown.join(', ')}` : 'the run starts';
    }
    case 'report':
      return `${model.nameOf(move.unit)} reports ${move.outcome}${move.shown ? ` (${move.shown})` : ''}`;
    case 'decide':
      return `${model.nameOf(move.unit)} is decided: ${move.choice}`;
    case 'lost':
      return model.irOf(move.unit).kind === 'check'
        ? `${model.nameOf(move.unit)} times out`
        : `${model.nameOf(move.unit)} loses its agent`;
    case 'begin':
      return `${model.nameOf(move.unit)} starts`;
  }
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : toText(value) || 'null';
}

/** The path of a result in words, one line per move. */
export function pathLines(exploration: Exploration, path: readonly Move[]): string[] {
  return describePath(exploration.model, path).map((e) => e.text);
}
