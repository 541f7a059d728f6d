/**
 * Coverage hints, an editor-only layer over the diagnostics: once `kairoku-playbook test --coverage` has
 * written `NAME.coverage.json` beside a playbook, each outcome and gate choice no test takes is faded
 * ("no test takes this outcome"), and a code action writes a test whose scenario takes it. Not a compiler
 * diagnostic: `check` never reports them (they depend on a file of test results, not on the playbook),
 * which is why the parity test between `check` and the server leaves them out (lsp/README.md).
 */
import { exampleInputValue } from '@kairoku-playbook/compiler';
import type { OffsetRange, PlaybookModel, StepDecl } from '@kairoku-playbook/compiler';
import { AFTER_PREFIX } from '@kairoku-playbook/machine';
import type { CoverageFile } from '@kairoku-playbook/machine';
import type { FileAnalysis } from '../language/types.js';

/** An outcome or choice no test takes, where its name is declared. */
export interface CoverageHint {
  range: OffsetRange;
  message: string;
  /** the step, or `after.NAME` */
  unit: string;
  /** the outcome or choice */
  arm: string;
  kind: 'outcome' | 'choice';
}

/** What the hints read of `NAME.coverage.json`: its branches; undefined for a file that is not one. */
export type CoverageBranches = Pick<CoverageFile, 'branches'>;

/** `NAME.coverage.json`'s text as the hints read it, or undefined when it is not a coverage file. */
export function readCoverageFile(text: string): CoverageBranches | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const file = value as { coverage?: unknown; branches?: unknown };
  if (file.coverage !== 1 || !Array.isArray(file.branches)) return undefined;
  const branches = file.branches.filter(
    (b): b is CoverageFile['branches'][number] =>
      typeof b === 'object' &&
      b !== null &&
      typeof (b as { unit?: unknown }).unit === 'string' &&
      typeof (b as { arm?: unknown }).arm === 'string' &&
      typeof (b as { kind?: unknown }).kind === 'string' &&
      typeof (b as { hits?: unknown }).hits === 'number',
  );
  return { branches };
}

function unitOf(model: PlaybookModel, unit: string): StepDecl | undefined {
  return unit.startsWith(AFTER_PREFIX)
    ? model.after.find((a) => a.name === unit.slice(AFTER_PREFIX.length))
    : model.stepByName.get(unit);
}

/**
 * The hints of a playbook: each outcome and choice the coverage file says no test takes, at its name
 * in the playbook as it is now (matched by step and name, so an edit since the tests ran moves them
 * along). An implicit outcome (an agent's `done` and `failed` without `outcomes:`) has no name to fade.
 */
export function coverageHints(analysis: FileAnalysis, coverage: CoverageBranches): CoverageHint[] {
  const model = analysis.model;
  if (!model) return [];
  const hints: CoverageHint[] = [];
  for (const branch of coverage.branches) {
    if (branch.hits > 0 || (branch.kind !== 'outcome' && branch.kind !== 'choice')) continue;
    const outcome = unitOf(model, branch.unit)?.outcomes.find((o) => o.name === branch.arm);
    if (!outcome?.keyRange) continue;
    hints.push({
      range: outcome.keyRange,
      message: `no test takes this ${branch.kind}`,
      unit: branch.unit,
      arm: branch.arm,
      kind: branch.kind,
    });
  }
  return hints;
}

/**
 * A playbook test whose scenario takes the hint's outcome or choice: the step (or after-task) reports it,
 * the gate decides it, every other step keeps the sim's default (its first outcome), and each required
 * input without a default gets a value of its type. `expect:` is left for the author: what the run
 * then does is theirs to say.
 */
export function testSkeleton(
  analysis: FileAnalysis,
  hint: Pick<CoverageHint, 'unit' | 'arm' | 'kind'>,
): string {
  const model = analysis.model;
  const playbook = analysis.file.slice(analysis.file.lastIndexOf('/') + 1);
  const lines = [
    `# A playbook test of ${playbook} that takes ${hint.unit}: ${hint.arm} (format: docs/reference.md,`,
    '# "Scenarios and playbook tests"). Run it with: kairoku-playbook test --coverage',
    `name: ${hint.unit} ${hint.kind === 'choice' ? 'decides' : 'reports'} ${hint.arm}`,
  ];
  const inputs = (model?.inputs ?? []).filter((i) => i.required && !i.defaultValue);
  if (inputs.length) {
    lines.push('inputs:');
    for (const input of inputs) lines.push(`  ${input.name}: ${exampleInputValue(input)}`);
  }
  if (hint.kind === 'choice') lines.push('gates:', `  ${hint.unit}:`, `    - { choice: ${hint.arm} }`);
  else if (hint.unit.startsWith(AFTER_PREFIX))
    lines.push('after:', `  ${hint.unit.slice(AFTER_PREFIX.length)}:`, `    - { outcome: ${hint.arm} }`);
  else lines.push('steps:', `  ${hint.unit}:`, `    - { outcome: ${hint.arm} }`);
  lines.push('expect: {} # what the run must do: status, steps (attempts), loops, outputs');
  return `${lines.join('\n')}\n`;
}
