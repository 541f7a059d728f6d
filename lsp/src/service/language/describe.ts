/**
 * Markdown about the named things of a playbook, for hover and completion documentation.
 */
import { stepKindText, typeToString } from '@kairoku-playbook/compiler';
import type { OutcomeDecl, RoleDecl, StepDecl } from '@kairoku-playbook/compiler';
import type { PlaybookSymbol } from './symbols.js';
import { CHECK_OUTPUTS, FIXED_ROLES } from './types.js';
import type { FileAnalysis, OffsetRange } from './types.js';

/**
 * A step or after-task by name as the compiler's scope provider resolves it (the first of that name);
 * from the model when there is no semantic model (a playbook over the step limit is not bound).
 */
export function stepNamed(analysis: FileAnalysis, name: string, isAfter: boolean): StepDecl | undefined {
  const scopes = analysis.semantic?.scopes;
  if (scopes) return isAfter ? scopes.afterTask(name) : scopes.step(name);
  const model = analysis.model;
  return isAfter ? model?.after.find((s) => s.name === name) : model?.stepByName.get(name);
}

export function code(text: string): string {
  return `\`${text.replaceAll('`', "'")}\``;
}

export function lineOf(analysis: FileAnalysis, range: OffsetRange | undefined): string {
  return range ? `line ${analysis.source.positionAt(range.start).line + 1}` : '';
}

export function transitionText(outcome: OutcomeDecl): string {
  const t = outcome.transition;
  if (!t) return '?';
  if (t.kind !== 'loop') return t.kind;
  const parts = [`loop to ${code(t.target?.name ?? '?')}`];
  if (t.max) parts.push(`max ${t.max.value}`);
  if (t.exhausted) parts.push(`then ${t.exhausted.kind}`);
  return parts.join(', ');
}

const FIXED_ROLE_DOCS: Record<string, string> = {
  implementer: 'may read, edit, write and run commands, inside its own worktree',
  reviewer: 'may read and run commands; read-only: a change to the worktree fails the attempt',
  planner: 'may read and use MCP servers; read-only',
  researcher: 'may read and use MCP servers; read-only',
};

export function describeStep(analysis: FileAnalysis, step: StepDecl): string {
  const lines = [`**${stepKindText(step)}** ${code(step.name)}`];
  const facts: string[] = [];
  if (step.role) facts.push(`role ${code(step.role.name)}`);
  if (step.needs.length) facts.push(`needs ${step.needs.map((n) => code(n.name)).join(', ')}`);
  if (step.when) facts.push('runs only `when` its condition holds');
  if (facts.length) lines.push(facts.join(' · '));
  const outputs = [
    ...(step.kind === 'check' ? CHECK_OUTPUTS.map((name) => `${name}: integer`) : []),
    ...step.outputs.map((o) => `${o.name}: ${o.type ? typeToString(o.type) : (o.typeText?.value ?? '?')}`),
  ];
  if (outputs.length) lines.push(`Outputs: ${outputs.map(code).join(', ')}`);
  if (step.outcomes.length) {
    const word = step.kind === 'gate' ? 'Choices' : 'Outcomes';
    lines.push(`${word}: ${step.outcomes.map((o) => `${code(o.name)} → ${transitionText(o)}`).join(', ')}`);
  }
  lines.push(`Declared on ${lineOf(analysis, step.keyRange)}.`);
  return lines.join('\n\n');
}

export function describeRole(analysis: FileAnalysis, role: RoleDecl): string {
  const fixed = (FIXED_ROLES as readonly string[]).includes(role.name);
  const base = role.base?.name ?? (fixed ? role.name : undefined);
  const lines = [`**role** ${code(role.name)}${base && base !== role.name ? ` (base ${code(base)})` : ''}`];
  if (base && FIXED_ROLE_DOCS[base]) lines.push(`From the fixed table: ${FIXED_ROLE_DOCS[base]}.`);
  if (role.instructions) {
    const text = role.instructions.value.trim();
    lines.push(`> ${text.length > 300 ? `${text.slice(0, 300)}…` : text}`.replaceAll('\n', '\n> '));
  }
  const settings = [
    role.provider ? `provider ${code(role.provider)}` : undefined,
    role.model ? `model ${code(role.model)}` : undefined,
    role.mode ? `mode ${code(role.mode)}` : undefined,
  ].filter(Boolean);
  if (settings.length) lines.push(settings.join(' · '));
  lines.push(
    role.keyRange
      ? `Declared on ${lineOf(analysis, role.keyRange)}.`
      : 'A fixed-table role, not declared here.',
  );
  return lines.join('\n\n');
}

export function describeSymbol(analysis: FileAnalysis, symbol: PlaybookSymbol): string | undefined {
  const model = analysis.model;
  if (!model) return undefined;
  switch (symbol.kind) {
    case 'step':
    case 'after': {
      const step = stepNamed(analysis, symbol.name, symbol.kind === 'after');
      return step ? describeStep(analysis, step) : undefined;
    }
    case 'input': {
      const input = model.inputs.find((i) => i.name === symbol.name);
      if (!input) return undefined;
      const type = input.type ? typeToString(input.type) : (input.typeText?.value ?? '?');
      const lines = [`**input** ${code(`${input.name}: ${type}`)}`];
      if (input.description) lines.push(input.description);
      const facts = [
        input.defaultValue ? `default ${code(JSON.stringify(input.defaultValue.value))}` : undefined,
        input.required ? 'required' : 'optional',
        input.secret ? 'secret' : undefined,
      ].filter(Boolean);
      lines.push(facts.join(' · '));
      return lines.join('\n\n');
    }
    case 'role': {
      const role = model.roles.get(symbol.name);
      return role ? describeRole(analysis, role) : undefined;
    }
    case 'output': {
      const step = symbol.owner;
      const output = step?.outputs.find((o) => o.name === symbol.name);
      if (!step) return undefined;
      const type = output
        ? output.type
          ? typeToString(output.type)
          : (output.typeText?.value ?? '?')
        : 'integer';
      const lines = [`**output** ${code(`${symbol.name}: ${type}`)} of step ${code(step.name)}`];
      if (output?.description) lines.push(output.description);
      if (!output) lines.push('Every check step has it, from its test runner summary.');
      return lines.join('\n\n');
    }
    case 'outcome': {
      const step = symbol.owner;
      const outcome = step?.outcomes.find((o) => o.name === symbol.name);
      if (!step || !outcome) return undefined;
      const what = step.kind === 'gate' ? 'choice' : 'outcome';
      const lines = [
        `**${what}** ${code(outcome.name)} of ${stepKindText(step)} ${code(step.name)} → ${transitionText(outcome)}`,
      ];
      if (!outcome.keyRange) lines.push(`A default ${what} of ${stepKindText(step)}s.`);
      if (outcome.label) lines.push(`Label: ${outcome.label}`);
      return lines.join('\n\n');
    }
  }
}
