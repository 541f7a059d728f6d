import type { Ir, IrStep } from '@kairoku-playbook/compiler';
import { stepCaption, loopLabel, rowsOf } from '@kairoku-playbook/panel/layout';

/** Loops of a playbook as edges back up the graph: from the step whose outcome fires to the target. */
function loops(ir: Ir): { from: IrStep; to: IrStep; label: string }[] {
  const result: { from: IrStep; to: IrStep; label: string }[] = [];
  for (const step of ir.steps) {
    for (const outcome of step.outcomes) {
      const t = outcome.transition;
      if (t.kind === 'loop')
        result.push({
          from: step,
          to: ir.steps[t.target]!,
          label: loopLabel({ outcome: outcome.name, max: t.max }),
        });
    }
  }
  return result;
}

/** Rows as the panel lays them out (the one layout): each step one row below its deepest need. */
export function graphText(ir: Ir): string {
  const rows = rowsOf(ir.steps.map((step) => ({ needs: step.needs, ...step.layout })));
  const lines = [`${ir.title} (${ir.id})`];
  for (const [row, members] of rows.entries()) {
    for (const step of members.map((index) => ir.steps[index]!)) {
      const needs = step.needs.length ? ` ← ${step.needs.map((n) => ir.steps[n]!.name).join(', ')}` : '';
      const when = step.when ? ' (when …)' : '';
      lines.push(`${String(row).padStart(3)}  ${step.name} [${stepCaption(step)}]${when}${needs}`);
      for (const outcome of step.outcomes) {
        const t = outcome.transition;
        if (t.kind === 'loop')
          lines.push(
            `       ⟲ ${outcome.name} → ${ir.steps[t.target]!.name} (max ${t.max}, then ${t.exhausted})`,
          );
        else if (t.kind !== 'next') lines.push(`       ${outcome.name} → ${t.kind}`);
      }
    }
  }
  if (ir.after.length) {
    lines.push('  after the run:');
    for (const task of ir.after)
      lines.push(
        `       ${task.name} [${task.kind}, ${task.trigger}${task.trigger === 'auto' ? ` on ${task.on.join(', ')}` : ''}]`,
      );
  }
  return `${lines.join('\n')}\n`;
}

const mermaidId = (name: string) => `s_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
const quote = (text: string) => text.replace(/"/g, '#quot;');

export function graphMermaid(ir: Ir): string {
  const lines = ['flowchart TD'];
  for (const step of ir.steps) {
    // Mermaid takes <br> for a line break inside a label; a raw newline would end the statement.
    const label = `${quote(step.name)}<br>${quote(stepCaption(step))}`;
    lines.push(
      step.kind === 'gate'
        ? `  ${mermaidId(step.name)}{"${label}"}`
        : `  ${mermaidId(step.name)}["${label}"]`,
    );
  }
  for (const step of ir.steps)
    for (const need of step.needs)
      lines.push(`  ${mermaidId(ir.steps[need]!.name)} --> ${mermaidId(step.name)}`);
  for (const loop of loops(ir))
    lines.push(`  ${mermaidId(loop.from.name)} -. "${quote(loop.label)}" .-> ${mermaidId(loop.to.name)}`);
  return `${lines.join('\n')}\n`;
}

const dotString = (text: string) =>
  `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;

export function graphDot(ir: Ir): string {
  const lines = [`digraph ${dotString(ir.id)} {`, '  rankdir=TB;', '  node [shape=box, style=rounded];'];
  for (const step of ir.steps) {
    const shape = step.kind === 'gate' ? ', shape=diamond' : step.kind === 'check' ? ', shape=box' : '';
    lines.push(
      `  ${dotString(step.name)} [label=${dotString(`${step.name}\n${stepCaption(step)}`)}${shape}];`,
    );
  }
  for (const step of ir.steps)
    for (const need of step.needs)
      lines.push(`  ${dotString(ir.steps[need]!.name)} -> ${dotString(step.name)};`);
  for (const loop of loops(ir)) {
    lines.push(
      `  ${dotString(loop.from.name)} -> ${dotString(loop.to.name)} [style=dashed, constraint=false, label=${dotString(loop.label)}];`,
    );
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
