import type { FileAnalysis } from '../compile.js';
import type { Diagnostic } from '../diagnostic.js';
import { sortDiagnostics } from '../diagnostic.js';
import { SourceText } from '../source-text.js';
import { playbookFilesOf } from '../workspace/discovery.js';
import { readYaml, requiredRange } from '../yaml/read-yaml.js';
import { brokenPlaybook, missingPlaybook } from './checks/test-playbook.js';
import { checkTestShape } from './checks/test-shape.js';
import { checkTestValueTypes } from './checks/test-value-types.js';
import { checkUnknownTestChoices } from './checks/unknown-test-choices.js';
import { checkUnknownTestGates } from './checks/unknown-test-gates.js';
import { checkUnknownTestInputs } from './checks/unknown-test-inputs.js';
import { checkUnknownTestOutcomes } from './checks/unknown-test-outcomes.js';
import { checkUnknownTestOutputs } from './checks/unknown-test-outputs.js';
import { checkUnknownTestSteps } from './checks/unknown-test-steps.js';
import { checkMissingTestInputs, emptyTestMissingInputs } from './checks/missing-test-inputs.js';
import { collectSites } from './sites.js';
import type { TestSite } from './sites.js';
import { TestCheckContext } from './test-context.js';
import type { TestCheck } from './test-context.js';

/** The checks of a playbook test against its playbook, each with codes of its own (PB803–PB810). */
const TEST_CHECKS: readonly TestCheck[] = [
  checkUnknownTestSteps,
  checkUnknownTestGates,
  checkUnknownTestOutcomes,
  checkUnknownTestChoices,
  checkUnknownTestOutputs,
  checkTestValueTypes,
  checkUnknownTestInputs,
  checkMissingTestInputs,
];

/** One playbook test's analysis: its diagnostics and the names it uses (for the editor). */
export interface TestFileAnalysis {
  file: string;
  text: string;
  source: SourceText;
  diagnostics: Diagnostic[];
  /** the playbook it tests, as the workspace names it; undefined when there is none */
  playbook: string | undefined;
  /** every name the test uses of its playbook, where it stands */
  sites: TestSite[];
  /** the test as plain data (null for an empty file): what `test` runs once no diagnostic is an error */
  value: unknown;
}

/**
 * The playbooks of the playbook tests among `files` that are not among them (`check pr.test.yml` reads
 * pr.yml beside it; a test beside a playbook discovery does not find): `read` gives a file's text (by the
 * name the workspace gives it), or undefined when there is none or it cannot be read. They are read for the
 * tests only (`forTests`): their own diagnostics are not reported.
 */
export function playbooksOfTests(
  files: readonly { file: string }[],
  read: (file: string) => string | undefined,
): { file: string; text: string; forTests: true }[] {
  const known = new Set(files.map((f) => f.file));
  const found: { file: string; text: string; forTests: true }[] = [];
  for (const { file } of files) {
    const candidates = playbookFilesOf(file);
    if (candidates.length === 0 || candidates.some((c) => known.has(c))) continue;
    for (const candidate of candidates) {
      const text = read(candidate);
      if (text === undefined) continue;
      known.add(candidate);
      found.push({ file: candidate, text, forTests: true });
      break;
    }
  }
  return found;
}

/**
 * Checks one playbook test (`NAME.test.yml`, SPEC §8) against the analysis of its playbook: its YAML
 * (PB100, PB101), its shape (PB800), that the playbook is there (PB801) and compiles (PB802), then every
 * name it uses (PB803–PB809). Pure, like the playbook's analysis. `command` is how a person runs the
 * CLI where the diagnostics are shown (PB802's hint; `kairoku-playbook` when not said).
 */
export function analyzeTestFile(
  file: string,
  text: string,
  playbook: FileAnalysis | undefined,
  command?: string,
): TestFileAnalysis {
  const source = new SourceText(text);
  const analysis: TestFileAnalysis = {
    file,
    text,
    source,
    diagnostics: [],
    playbook: playbook?.file,
    sites: [],
    value: null,
  };
  const yaml = readYaml(file, text);
  analysis.value = yaml.value ?? null;
  const diagnostics = [...yaml.diagnostics];
  const document = yaml.document;
  if (document && !yaml.damaged.length) {
    const model =
      playbook && !playbook.diagnostics.some((d) => d.severity === 'error') ? playbook.model : undefined;
    for (const diagnostic of checkTestShape(file, document, yaml.value, model)) diagnostics.push(diagnostic);
    analysis.sites = collectSites(document);
  }
  const syntaxErrors = diagnostics.some((d) => d.code === 'PB100' || d.code === 'PB101');
  if (!syntaxErrors) {
    // (a diagnostic about the whole test points at its first key, the start of a file without one)
    const at = document ? requiredRange(document, '') : { start: 0, end: 0 };
    if (!playbook) {
      const expected = playbookFilesOf(file).filter((name) => name.endsWith('.yml'));
      const names = expected.map((name) => name.split('/').pop()!);
      diagnostics.push(missingPlaybook(file, at, names.length ? names : [file.split('/').pop()!]));
    } else {
      const errors = playbook.diagnostics.filter((d) => d.severity === 'error').length;
      if (errors || !playbook.model)
        diagnostics.push(brokenPlaybook(file, at, playbook.file, errors, command));
      else if (document) {
        const misshapen = diagnostics.some((d) => d.code === 'PB800');
        const context = new TestCheckContext(file, document, analysis.sites, playbook.model, {
          misshapen,
          text: yaml.parsedText,
        });
        for (const check of TEST_CHECKS) check(context);
        for (const diagnostic of context.diagnostics) diagnostics.push(diagnostic);
      } else {
        const missing = emptyTestMissingInputs(file, playbook.model);
        if (missing) diagnostics.push(missing);
      }
    }
  }
  analysis.diagnostics = sortDiagnostics(diagnostics);
  return analysis;
}
