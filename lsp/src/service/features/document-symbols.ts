/**
 * Document symbols (the outline): the inputs, roles, steps (with their outputs and outcomes or choices),
 * after-tasks and playbook outputs, each spanning its whole entry, selected on its key.
 */
import { isMap } from 'yaml';
import type { Node, Pair, YAMLMap } from 'yaml';
import { stepKindText, typeToString } from '@kairoku-playbook/compiler';
import type { StepDecl } from '@kairoku-playbook/compiler';
import { stepNamed } from '../language/describe.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';
import { keyText, pairAt, pairRange, rangeOfNode, yamlDocument } from '../language/yaml-document.js';

export type OutlineKind = 'section' | 'input' | 'role' | 'step' | 'after-task' | 'output' | 'outcome';

export interface OutlineSymbol {
  name: string;
  detail: string | undefined;
  kind: OutlineKind;
  range: OffsetRange;
  selectionRange: OffsetRange;
  children: OutlineSymbol[];
}

const SECTIONS: readonly [string, OutlineKind][] = [
  ['inputs', 'input'],
  ['roles', 'role'],
  ['steps', 'step'],
  ['after', 'after-task'],
  ['outputs', 'output'],
];

export function documentSymbols(analysis: FileAnalysis): OutlineSymbol[] {
  const document = yamlDocument(analysis);
  if (!document) return [];
  const model = analysis.model;
  const symbols: OutlineSymbol[] = [];
  for (const [section, kind] of SECTIONS) {
    const pair = pairAt(document, [section]);
    if (!pair) continue;
    const sectionSymbol = entry(pair, 'section', undefined);
    if (!sectionSymbol) continue;
    for (const child of mapPairs(pair.value)) {
      const name = keyText(child) ?? '';
      let detail: string | undefined;
      let step: StepDecl | undefined;
      switch (kind) {
        case 'input': {
          const input = model?.inputs.find((i) => i.name === name);
          detail = input?.type ? typeToString(input.type) : input?.typeText?.value;
          break;
        }
        case 'role': {
          const role = model?.roles.get(name);
          detail = role?.base ? `base ${role.base.name}` : undefined;
          break;
        }
        case 'step':
        case 'after-task':
          step = stepNamed(analysis, name, kind === 'after-task');
          detail = step ? `${stepKindText(step)}${step.role ? ` · ${step.role.name}` : ''}` : undefined;
          break;
        case 'output':
          detail = undefined;
          break;
      }
      const symbol = entry(child, kind, detail);
      if (!symbol) continue;
      if (step) symbol.children = stepChildren(step, child);
      sectionSymbol.children.push(symbol);
    }
    symbols.push(sectionSymbol);
  }
  return symbols;
}

function stepChildren(step: StepDecl, pair: Pair): OutlineSymbol[] {
  const children: OutlineSymbol[] = [];
  const body = pair.value;
  for (const output of mapPairs(mapValue(body, 'outputs'))) {
    const decl = step.outputs.find((o) => o.name === keyText(output));
    const symbol = entry(output, 'output', decl?.type ? typeToString(decl.type) : decl?.typeText?.value);
    if (symbol) children.push(symbol);
  }
  const outcomes =
    step.kind === 'gate' ? mapValue(mapValue(body, 'gate'), 'choices') : mapValue(body, 'outcomes');
  for (const outcome of mapPairs(outcomes)) {
    const symbol = entry(outcome, 'outcome', step.kind === 'gate' ? 'choice' : 'outcome');
    if (symbol) children.push(symbol);
  }
  return children;
}

function mapPairs(node: unknown): Pair[] {
  return isMap(node) ? ((node as YAMLMap).items as Pair[]) : [];
}

function mapValue(node: unknown, key: string): unknown {
  return mapPairs(node).find((p) => keyText(p) === key)?.value;
}

function entry(pair: Pair, kind: OutlineKind, detail: string | undefined): OutlineSymbol | undefined {
  const selectionRange = rangeOfNode(pair.key as Node | null);
  const range = pairRange(pair);
  if (!selectionRange || !range) return undefined;
  return { name: keyText(pair) ?? '', detail, kind, range, selectionRange, children: [] };
}
