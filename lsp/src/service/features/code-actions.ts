/**
 * Quick fixes, keyed by diagnostic code: the diagnostic's own fix (did-you-mean replacements); PB205 adds
 * the step to the referencing step's `needs`; PB204 declares the missing output on the step; PB903 removes
 * the suppression that silences nothing; PB700 adds a gate before the step; and any other diagnostic can be silenced with a
 * `# playbook-ignore CODE` comment at the end of its line, where a comment can go.
 */
import { isMap, isScalar, visit } from 'yaml';
import type { Node, Pair, Scalar } from 'yaml';
import type { Diagnostic } from '@kairoku-playbook/compiler';
import { chainOf, expressionsOf, walkExpression } from '../language/expression-at.js';
import { NAME_PATTERN } from '../language/types.js';
import type { FileAnalysis, OffsetEdit } from '../language/types.js';
import {
  addToMapping,
  addToSection,
  addToSequence,
  indentUnit,
  lineEndOf,
  lineStartOf,
} from '../language/yaml-edit.js';
import { pairAt, yamlDocument } from '../language/yaml-document.js';

export interface CodeActionResult {
  title: string;
  kind: 'quickfix';
  /** the diagnostic it fixes */
  diagnostic: Diagnostic;
  edits: OffsetEdit[];
  isPreferred: boolean;
}

/** Codes that a suppression comment is not offered for. */
const NOT_SUPPRESSIBLE = new Set(['PB100', 'PB903']);

export function codeActionsFor(
  analysis: FileAnalysis,
  diagnostics: readonly Diagnostic[],
): CodeActionResult[] {
  const actions: CodeActionResult[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.file !== analysis.file) continue;
    const add = (title: string, edits: OffsetEdit[], isPreferred: boolean) => {
      if (edits.length) actions.push({ title, kind: 'quickfix', diagnostic, edits, isPreferred });
    };
    if (diagnostic.fix) add(diagnostic.fix.title, diagnostic.fix.edits, true);
    switch (diagnostic.code) {
      case 'PB205': {
        const need = missingNeed(analysis, diagnostic);
        if (need) add(`Add "${need.target}" to the needs of "${need.step}"`, need.edits, !diagnostic.fix);
        break;
      }
      case 'PB204': {
        const output = missingOutput(analysis, diagnostic);
        if (output)
          add(
            `Declare output "${output.output}" (string) on step "${output.step}"`,
            output.edits,
            !diagnostic.fix,
          );
        break;
      }
      case 'PB903':
        add(`Remove this unused suppression`, removeSuppression(analysis.text, diagnostic), true);
        break;
      case 'PB700': {
        // Not the diagnostic's own fix, so `check --fix` never applies it: it changes what the run does.
        const gate = gateBefore(analysis, diagnostic);
        if (gate) add(`Add a gate "${gate.gate}" before "${gate.step}"`, gate.edits, false);
        break;
      }
    }
    // Errors are never silenced (a playbook with one must not compile): only warnings and infos.
    if (!NOT_SUPPRESSIBLE.has(diagnostic.code) && diagnostic.severity !== 'error') {
      const edits = suppress(analysis, diagnostic);
      add(`Ignore ${diagnostic.code} on this line`, edits, false);
    }
  }
  return actions;
}

/** PB205: the step the expression refers to, and the edit adding it to the owner's needs. */
function missingNeed(
  analysis: FileAnalysis,
  diagnostic: Diagnostic,
): { step: string; target: string; edits: OffsetEdit[] } | undefined {
  const model = analysis.model;
  const context = analysis.semantic;
  const document = yamlDocument(analysis);
  if (!model || !context || !document) return undefined;
  for (const info of context.templates) {
    const reference = info.references.find(
      (r) =>
        r.kind === 'step' && r.range.start === diagnostic.range.start && r.range.end === diagnostic.range.end,
    );
    if (reference?.kind !== 'step' || !info.owner || info.owner.isAfter) continue;
    const owner = model.stepByName.get(info.owner.name);
    const target = model.stepByName.get(reference.step);
    if (!owner || !target || owner === target) return undefined;
    // Adding the need must not close a cycle.
    if (context.graph.isAncestor(owner.index, target.index)) return undefined;
    const stepPair = pairAt(document, ['steps', owner.name]);
    if (!stepPair || !isMap(stepPair.value)) return undefined;
    const needs = (stepPair.value.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === 'needs');
    const edits = needs
      ? addToSequence(analysis.text, needs, target.name)
      : addToMapping(analysis.text, stepPair.value, 'needs', `[${target.name}]`, true);
    return { step: owner.name, target: target.name, edits };
  }
  return undefined;
}

/**
 * PB700: a new gate right before the step, taking over its needs, and the step needing the gate instead:
 * every path to the step then passes it. Only for a step written as a block mapping under a block `steps:`.
 */
function gateBefore(
  analysis: FileAnalysis,
  diagnostic: Diagnostic,
): { step: string; gate: string; edits: OffsetEdit[] } | undefined {
  const model = analysis.model;
  const document = yamlDocument(analysis);
  if (!model || !document) return undefined;
  const step = model.steps.find((s) => s.keyRange.start === diagnostic.range.start);
  if (!step) return undefined;
  const steps = pairAt(document, ['steps']);
  const stepPair = pairAt(document, ['steps', step.name]);
  if (!steps || !isMap(steps.value) || steps.value.flow || !stepPair || !isMap(stepPair.value))
    return undefined;
  if (stepPair.value.flow) return undefined;
  let gate = `approve-${step.name}`;
  for (let n = 2; model.stepByName.has(gate); n++) gate = `approve-${step.name}-${n}`;
  const text = analysis.text;
  const nl = text.includes('\r\n') ? '\r\n' : '\n';
  const lineStart = lineStartOf(text, step.keyRange.start);
  const indent = text.slice(lineStart, step.keyRange.start);
  if (indent.trim() !== '') return undefined;
  const unit = ' '.repeat(indentUnit(text, stepPair.key as Node | null, stepPair.value));
  const needs = [...new Set(step.needs.map((need) => need.name))];
  const lines = [
    `${indent}${gate}:`,
    ...(needs.length ? [`${indent}${unit}needs: [${needs.join(', ')}]`] : []),
    `${indent}${unit}gate:`,
    `${indent}${unit}${unit}title: Run ${step.name}?`,
  ];
  const edits: OffsetEdit[] = [{ range: { start: lineStart, end: lineStart }, newText: lines.join(nl) + nl }];
  const needsPair = (stepPair.value.items as Pair[]).find((p) => isScalar(p.key) && p.key.value === 'needs');
  const value = needsPair?.value as Node | null | undefined;
  if (needsPair && value?.range) {
    // (a block list's range runs on over the line break after it: that stays)
    let end = value.range[1];
    while (end > value.range[0] && /\s/.test(text[end - 1]!)) end--;
    edits.push({ range: { start: value.range[0], end }, newText: `[${gate}]` });
  } else if (!needsPair) {
    const added = addToMapping(text, stepPair.value, 'needs', `[${gate}]`, true);
    if (!added.length) return undefined;
    edits.push(...added);
  } else return undefined;
  return { step: step.name, gate, edits };
}

/** PB204: `steps.S.outputs.O` with O undeclared; the edit declaring `O: string` on S. */
function missingOutput(
  analysis: FileAnalysis,
  diagnostic: Diagnostic,
): { step: string; output: string; edits: OffsetEdit[] } | undefined {
  const model = analysis.model;
  const context = analysis.semantic;
  const document = yamlDocument(analysis);
  if (!model || !context || !document) return undefined;
  for (const info of context.templates) {
    for (const { expr } of expressionsOf(info)) {
      for (const node of walkExpression(expr)) {
        if (node.kind !== 'member') continue;
        const chain = chainOf(node);
        if (chain?.length !== 4 || chain[0] !== 'steps' || chain[2] !== 'outputs') continue;
        const range = context.rangeIn(info.text, node.propertySpan.start, node.propertySpan.end);
        if (range.start !== diagnostic.range.start || range.end !== diagnostic.range.end) continue;
        const [, stepName, , output] = chain as [string, string, string, string];
        const step = model.stepByName.get(stepName);
        if (!step || !NAME_PATTERN.test(output)) return undefined;
        const stepPair = pairAt(document, ['steps', step.name]);
        if (!stepPair) return undefined;
        const edits = addToSection(
          analysis.text,
          stepPair.key as Node | null,
          stepPair.value,
          'outputs',
          output,
          'string',
        );
        return { step: step.name, output, edits };
      }
    }
  }
  return undefined;
}

/** A `# playbook-ignore CODE` at the end of the diagnostic's first line, unless that line ends inside a scalar. */
function suppress(analysis: FileAnalysis, diagnostic: Diagnostic): OffsetEdit[] {
  const text = analysis.text;
  const lineStart = lineStartOf(text, diagnostic.range.start);
  const lineEnd = lineEndOf(text, diagnostic.range.start);
  const line = text.slice(lineStart, lineEnd);
  if (endsInsideScalar(analysis, lineStart, lineEnd)) return [];
  const existing = /(^|[ \t])#[ \t]*playbook-ignore\b/.exec(line);
  if (existing) {
    const at = lineStart + existing.index + existing[0].length;
    return [{ range: { start: at, end: at }, newText: ` ${diagnostic.code}` }];
  }
  const trimmedEnd = lineStart + line.replace(/\s+$/, '').length;
  const comment = `# playbook-ignore ${diagnostic.code} <reason>`;
  if (trimmedEnd === lineStart) return [{ range: { start: lineEnd, end: lineEnd }, newText: comment }];
  return [{ range: { start: trimmedEnd, end: lineEnd }, newText: ` ${comment}` }];
}

/** Whether the end of a line is inside a scalar (a block scalar's content, a multi-line quoted or plain one). */
function endsInsideScalar(analysis: FileAnalysis, lineStart: number, lineEnd: number): boolean {
  const document = yamlDocument(analysis);
  if (!document) return true;
  let inside = false;
  visit(document, {
    Scalar(_key, node: Scalar) {
      const range = node.range;
      if (!range || !(range[0] < lineEnd && lineEnd < range[1])) return undefined;
      const isBlock = node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED';
      // A block scalar's header line takes a comment (`prompt: | # …`); its content lines do not.
      if (isBlock && range[0] >= lineStart) return undefined;
      inside = true;
      return visit.BREAK;
    },
  });
  return inside;
}

/** PB903: removes the code from its comment, or the comment when it names nothing else. */
function removeSuppression(text: string, diagnostic: Diagnostic): OffsetEdit[] {
  const lineStart = lineStartOf(text, diagnostic.range.start);
  const lineEnd = lineEndOf(text, diagnostic.range.start);
  const line = text.slice(lineStart, lineEnd);
  const match = /(^|[ \t]*)#[ \t]*playbook-ignore\b([^\n\r]*)/.exec(line);
  if (!match) return [];
  const codes = match[2]!.match(/\bPB\d{3}\b/g) ?? [];
  if (codes.length > 1) {
    // Just this code, with the space before it.
    let start = diagnostic.range.start;
    while (
      start > lineStart &&
      (text[start - 1] === ' ' || text[start - 1] === '\t' || text[start - 1] === ',')
    )
      start--;
    return [{ range: { start, end: diagnostic.range.end }, newText: '' }];
  }
  const commentStart = lineStart + match.index;
  if (line.slice(0, match.index).trim() === '') {
    // A comment alone on its line: remove the line.
    let end = lineEnd;
    if (text[end] === '\r') end++;
    if (text[end] === '\n') end++;
    return [{ range: { start: lineStart, end }, newText: '' }];
  }
  return [{ range: { start: commentStart, end: lineEnd }, newText: '' }];
}
