/**
 * What completion offers in an expression is exactly what the compiler accepts there: at each probed place
 * of the fixtures and sample playbooks, every name the compiler could be asked about (the context roots,
 * the inputs, the steps and after-tasks, a step's fields and outputs, the fields of `run`, `loop`,
 * `report`, `gate`) is offered if and only if writing it there gives no diagnostic. A completion the compiler
 * then rejects (`report` in a gate's transition, a secret input in a prompt) is the bug class this catches.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHECK_OUTPUTS, analyzeFile } from '@kairoku-playbook/compiler';
import type { BoundTemplate, FileAnalysis, PlaybookModel, Scope } from '@kairoku-playbook/compiler';
import { CONTEXT_ROOTS } from '@kairoku-playbook/grammar';
import { describe, expect, it } from 'vitest';
import { completionsAt } from '../../../src/service/features/completion.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function playbooks(): { file: string; text: string }[] {
  const found: { file: string; text: string }[] = [];
  for (const dir of ['test/fixtures/ok', 'playbooks']) {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      if (!/\.ya?ml$/.test(name) || /\.test\.ya?ml$/.test(name)) continue;
      found.push({ file: `${dir}/${name}`, text: readFileSync(join(ROOT, dir, name), 'utf8') });
    }
  }
  return found;
}

/** The names the compiler could be asked about after `chain.` (a superset of what exists there). */
function universe(model: PlaybookModel, scope: Scope, chain: readonly string[]): string[] {
  const key = chain.join('.');
  if (key === '') return [...CONTEXT_ROOTS];
  if (key === 'inputs') return [...model.inputs.map((i) => i.name), 'no_such_input'];
  if (key === 'steps') return [...model.steps, ...model.after].map((s) => s.name);
  if (key === 'run') return ['id', 'playbook', 'branch', 'status', 'no_such_field'];
  if (key === 'loop') return ['count', 'feedback', 'no_such_field'];
  if (key === 'gate') return ['comment', 'choice', 'no_such_field'];
  if (key === 'report') return ['summary', 'outcome', 'outputs', 'no_such_field'];
  if (key === 'report.outputs')
    return [...(scope.owner?.outputs.map((o) => o.name) ?? []), ...CHECK_OUTPUTS, 'no_such_output'];
  const step = model.stepByName.get(chain[1]!);
  if (chain.length === 2) return ['outputs', 'outcome', 'status', 'summary', 'attempt', 'no_such_field'];
  return [...(step?.outputs.map((o) => o.name) ?? []), ...CHECK_OUTPUTS, 'no_such_output'];
}

/** The chains probed in one template: the roots, each root's members, and some steps' fields and outputs. */
function chains(model: PlaybookModel): string[][] {
  const probed: string[][] = [
    [],
    ['inputs'],
    ['steps'],
    ['run'],
    ['loop'],
    ['report'],
    ['report', 'outputs'],
    ['gate'],
  ];
  for (const step of model.steps.slice(0, 3))
    probed.push(['steps', step.name], ['steps', step.name, 'outputs']);
  return probed;
}

/** Where a probe `${{ toJSON(…) }} ` can be written: right before the template's first `${{`, written plainly. */
function probeOffset(analysis: FileAnalysis, template: BoundTemplate): number | undefined {
  const at = template.text.value.indexOf('${{');
  if (at < 0) return undefined;
  const offset = analysis.semantic!.rangeIn(template.text, at, at + 3).start;
  return analysis.text.slice(offset, offset + 3) === '${{' ? offset : undefined;
}

/** Probe each template of a few kinds of place (steps, transitions, gates, after-tasks, the playbook's own). */
function probedTemplates(analysis: FileAnalysis): BoundTemplate[] {
  const seen = new Set<string>();
  const picked: BoundTemplate[] = [];
  for (const template of analysis.semantic?.templates ?? []) {
    if (template.place === 'when' || template.syntaxErrors || template.tagMistake) continue;
    const scope = template.scope;
    const kind = `${scope.place}/${scope.owner?.kind}/${scope.owner?.isAfter}/${scope.transition?.isChoice}`;
    if (seen.has(kind)) continue;
    if (probeOffset(analysis, template) === undefined) continue;
    seen.add(kind);
    picked.push(template);
  }
  return picked;
}

function offered(analysis: FileAnalysis, file: string, at: number, prefix: string): string[] {
  const probe = `\${{ toJSON(${prefix}`;
  const text = `${analysis.text.slice(0, at)}${probe}) }} ${analysis.text.slice(at)}`;
  const probed = analyzeFile(file, text);
  const entries = completionsAt(probed, at + probe.length);
  // At the start of an operand: the roots (functions and literals are not names of the scope).
  return entries.filter((e) => prefix !== '' || e.kind === 'root').map((e) => e.label);
}

function accepted(
  analysis: FileAnalysis,
  file: string,
  at: number,
  prefix: string,
  names: string[],
): string[] {
  let inserted = '';
  const ranges: [number, number][] = [];
  for (const name of names) {
    const probe = `\${{ toJSON(${prefix}${name}) }} `;
    ranges.push([at + inserted.length, at + inserted.length + probe.length]);
    inserted += probe;
  }
  const text = `${analysis.text.slice(0, at)}${inserted}${analysis.text.slice(at)}`;
  const probed = analyzeFile(file, text);
  const inside = (range: { start: number; end: number }, i: number) =>
    range.start < ranges[i]![1] && range.end > ranges[i]![0];
  if (prefix === '') {
    // A root is accepted where it exists (written alone, `steps` needs a name after it: not this question).
    const hidden = probed.semantic!.referencesOf('context').filter((r) => !r.visible);
    return names.filter((_, i) => !hidden.some((r) => inside(r.range, i)));
  }
  return names.filter((_, i) => !probed.diagnostics.some((d) => inside(d.range, i)));
}

/**
 * The playbooks with a place to probe: a file without any `${{` has none, and a test over it would pass
 * having checked nothing; every file that has one must yield a probe (see the assertions below).
 */
function probedPlaybooks(): { file: string; text: string; probes: number }[] {
  return playbooks()
    .filter((f) => f.text.includes('${{'))
    .map((f) => ({ ...f, probes: probedTemplates(analyzeFile(f.file, f.text)).length }));
}

/** The fewest probed places over all the playbooks (177 when this was written): a drop means the probes stopped finding templates. */
const MIN_TOTAL_PROBES = 150;

describe('completion offers exactly what the compiler accepts', () => {
  const files = probedPlaybooks();

  it('has playbooks to probe, and places to probe in them', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files.reduce((sum, f) => sum + f.probes, 0)).toBeGreaterThanOrEqual(MIN_TOTAL_PROBES);
  });

  it.each(files.map((f) => [f.file, f.text] as const))(
    'at the probed places of %s',
    (file, text) => {
      const analysis = analyzeFile(file, text);
      const mismatches: string[] = [];
      const templates = probedTemplates(analysis);
      // (a file with a template but no probe would pass vacuously)
      expect(templates.length, `no place to probe in ${file}`).toBeGreaterThan(0);
      let compared = 0;
      for (const template of templates) {
        const at = probeOffset(analysis, template)!;
        for (const chain of chains(analysis.model!)) {
          const prefix = chain.length ? `${chain.join('.')}.` : '';
          const names = universe(analysis.model!, template.scope, chain);
          const offers = offered(analysis, file, at, prefix);
          const accepts = accepted(analysis, file, at, prefix, names);
          const offeredSet = new Set(offers);
          const acceptedSet = new Set(accepts);
          const where = `${template.scope.place} of ${template.scope.owner?.name ?? 'the playbook'}${template.outcome ? ` (transition ${template.outcome})` : ''}, after "${prefix}"`;
          for (const name of names) {
            compared++;
            if (offeredSet.has(name) !== acceptedSet.has(name))
              mismatches.push(
                `${where}: ${name} ${offeredSet.has(name) ? 'offered but rejected' : 'accepted but not offered'}`,
              );
          }
          for (const name of offers)
            if (!names.includes(name)) mismatches.push(`${where}: ${name} offered, outside the probed names`);
        }
      }
      expect(compared, `no name compared in ${file}`).toBeGreaterThan(0);
      expect(mismatches).toEqual([]);
    },
    60_000,
  );
});
