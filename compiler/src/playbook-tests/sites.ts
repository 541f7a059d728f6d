import { isMap, isScalar, isSeq } from 'yaml';
import type { Document, Node, Pair, Scalar, YAMLMap } from 'yaml';
import type { OffsetRange } from '../diagnostic.js';
import { findPair, keyName, rangeOf } from '../yaml/read-yaml.js';

/**
 * A name a playbook test uses that its playbook declares (or should): where it stands, to be checked,
 * completed, described on hover and renamed with the declaration. Ranges are the name's own characters.
 */
export type TestSite =
  | {
      /** a step or an after-task named by the test (`steps:`, `after:`, `expect.steps`, a loop counter) */
      kind: 'step';
      name: string;
      range: OffsetRange;
      after: boolean;
      /** `steps:` scripts reports (a gate there is a mistake); the others only name the step */
      scripted: boolean;
    }
  | { kind: 'gate'; name: string; range: OffsetRange }
  | {
      /** an outcome of a step, or a choice of a gate, as `expect` and loop counters name them */
      kind: 'outcome';
      name: string;
      range: OffsetRange;
      step: string;
      after: boolean;
    }
  | { kind: 'choice'; name: string; range: OffsetRange; gate: string }
  | {
      /** an output of a step's report (`step` set) or of the playbook (`expect.outputs`) */
      kind: 'output';
      name: string;
      range: OffsetRange;
      step: string | undefined;
      after: boolean;
      value: Node | null;
    }
  | { kind: 'input'; name: string; range: OffsetRange; value: Node | null };

/** Where a scalar's own text starts inside its node: after the quote of a quoted one. */
function textStart(node: Scalar): number {
  const start = node.range?.[0] ?? 0;
  return node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' ? start + 1 : start;
}

/** The range of a name written as a scalar: its characters, without quotes. */
function nameRange(node: unknown): OffsetRange {
  if (!isScalar(node)) return rangeOf(node as Node | null);
  const start = textStart(node);
  const text = String(node.value);
  const plainOrSimple =
    node.type === 'PLAIN' ||
    ((node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && !/['"\\]/.test(text));
  return plainOrSimple ? { start, end: start + text.length } : rangeOf(node);
}

function pairs(node: unknown): Pair[] {
  return isMap(node) ? ((node as YAMLMap).items as Pair[]) : [];
}

function stringScalar(node: unknown): node is Scalar & { value: string } {
  return isScalar(node) && typeof node.value === 'string';
}

/** The items of a list, or the one value written instead of a list. */
function itemsOf(node: unknown): unknown[] {
  return isSeq(node) ? (node.items as unknown[]) : node === null || node === undefined ? [] : [node];
}

/** Every name the test uses, in the order they are written. */
export function collectSites(document: Document.Parsed): TestSite[] {
  const sites: TestSite[] = [];
  const root = document.contents;
  if (!isMap(root)) return sites;
  const section = (name: string) => findPair(root as YAMLMap, name)?.value;

  for (const pair of pairs(section('inputs'))) {
    const name = keyName(pair.key);
    if (name)
      sites.push({ kind: 'input', name, range: nameRange(pair.key), value: pair.value as Node | null });
  }
  for (const key of ['steps', 'after'] as const) {
    for (const pair of pairs(section(key))) {
      const step = keyName(pair.key);
      if (!step) continue;
      const isAfter = key === 'after';
      sites.push({ kind: 'step', name: step, range: nameRange(pair.key), after: isAfter, scripted: true });
      for (const report of itemsOf(pair.value)) reportSites(report, step, isAfter, sites);
    }
  }
  for (const pair of pairs(section('gates'))) {
    const gate = keyName(pair.key);
    if (!gate) continue;
    sites.push({ kind: 'gate', name: gate, range: nameRange(pair.key) });
    for (const decision of itemsOf(pair.value)) {
      const choice = isMap(decision) ? findPair(decision as YAMLMap, 'choice')?.value : undefined;
      if (stringScalar(choice))
        sites.push({ kind: 'choice', name: choice.value, range: nameRange(choice), gate });
    }
  }
  expectSites(section('expect'), sites);
  return sites;
}

/** A scripted report's outcome and outputs. */
function reportSites(report: unknown, step: string, isAfter: boolean, sites: TestSite[]): void {
  const outcome = isMap(report) ? findPair(report as YAMLMap, 'outcome')?.value : undefined;
  if (stringScalar(outcome))
    sites.push({
      kind: 'outcome',
      name: outcome.value,
      range: nameRange(outcome),
      step,
      after: isAfter,
    });
  const outputs = isMap(report) ? findPair(report as YAMLMap, 'outputs')?.value : undefined;
  for (const output of pairs(outputs)) {
    const name = keyName(output.key);
    if (name)
      sites.push({
        kind: 'output',
        name,
        range: nameRange(output.key),
        step,
        after: isAfter,
        value: output.value as Node | null,
      });
  }
}

/** What `expect:` names: the steps and after-tasks with their attempts' outcomes, loop counters, outputs. */
function expectSites(expect: unknown, sites: TestSite[]): void {
  const expectPart = (name: string) => (isMap(expect) ? findPair(expect as YAMLMap, name)?.value : undefined);
  for (const key of ['steps', 'after'] as const) {
    for (const pair of pairs(expectPart(key))) {
      const step = keyName(pair.key);
      if (!step) continue;
      const isAfter = key === 'after';
      sites.push({ kind: 'step', name: step, range: nameRange(pair.key), after: isAfter, scripted: false });
      const attempts = isMap(pair.value) ? findPair(pair.value as YAMLMap, 'attempts')?.value : undefined;
      if (isSeq(attempts))
        for (const item of attempts.items)
          if (stringScalar(item))
            sites.push({ kind: 'outcome', name: item.value, range: nameRange(item), step, after: isAfter });
    }
  }
  for (const pair of pairs(expectPart('loops'))) {
    const counter = keyName(pair.key);
    const dot = counter?.indexOf('.') ?? -1;
    if (!counter || dot <= 0 || !isScalar(pair.key)) continue;
    const range = nameRange(pair.key);
    // (a counter written with escapes has no one-to-one characters: it is checked, not split)
    const exact = range.end - range.start === counter.length;
    const step = counter.slice(0, dot);
    const outcome = counter.slice(dot + 1);
    sites.push({
      kind: 'step',
      name: step,
      range: exact ? { start: range.start, end: range.start + dot } : range,
      after: false,
      scripted: false,
    });
    sites.push({
      kind: 'outcome',
      name: outcome,
      range: exact ? { start: range.start + dot + 1, end: range.end } : range,
      step,
      after: false,
    });
  }
  for (const pair of pairs(expectPart('outputs'))) {
    const name = keyName(pair.key);
    if (name)
      sites.push({
        kind: 'output',
        name,
        range: nameRange(pair.key),
        step: undefined,
        after: false,
        value: pair.value as Node | null,
      });
  }
}
