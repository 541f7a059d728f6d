import { isScalar } from 'yaml';
import type { Document, Node } from 'yaml';
import { createDiagnostic, replaceFix, shown, shownValue } from '../../diagnostic.js';
import type { Diagnostic } from '../../diagnostic.js';
import { nodeAtPointer, pairAtPointer, rangeOf, requiredRange } from '../../yaml/read-yaml.js';
import { describeShapePath, expectedWords, shapeProblems } from '../shape-problems.js';
import type { ShapeProblem } from '../shape-problems.js';
import { withoutMisplacedEchoes } from '../resolve-names.js';
import type { TestPlaybook } from '../resolve-names.js';

/**
 * PB800: where a playbook test does not fit its shape (the rules of `shapeProblems`, the JSON Schema
 * grammar/schema/playbook-test.schema.json, which the runtime's readers ask too): an unknown key, a
 * missing one, a value of the wrong shape. One mistake, one diagnostic; this only words each problem and
 * finds its characters.
 */
export function checkTestShape(
  file: string,
  document: Document.Parsed,
  value: unknown,
  playbook?: TestPlaybook,
): Diagnostic[] {
  const problems = shapeProblems(value, 'test');
  // (with its playbook known, what only echoes a misplaced name, PB804, is left to that diagnostic)
  const shown = playbook ? withoutMisplacedEchoes(problems, playbook) : problems;
  return shown.map((problem) => diagnosticOf(file, document, problem));
}

function diagnosticOf(file: string, document: Document.Parsed, problem: ShapeProblem): Diagnostic {
  const where = describeShapePath(problem.path);
  if (problem.problem === 'unknown-key') {
    const pair = pairAtPointer(document, problem.pointer, problem.key);
    const range = rangeOf(pair?.key as Node);
    const { suggestion } = problem;
    return createDiagnostic(
      file,
      'PB800',
      range,
      `unknown key "${shown(problem.key)}"${where ? ` in ${where}` : ' in a playbook test'}${
        suggestion ? `; did you mean "${suggestion}"?` : `; expected ${problem.allowed.join(', ')}`
      }`,
      { fix: isScalar(pair?.key) ? replaceFix(range, suggestion) : undefined },
    );
  }
  if (problem.problem === 'bad-key') {
    const pair = pairAtPointer(document, problem.pointer, problem.key);
    return createDiagnostic(
      file,
      'PB800',
      rangeOf(pair?.key as Node),
      `key "${shown(problem.key)}" in ${where} must be ${expectedWords(problem)}`,
    );
  }
  if (problem.problem === 'missing-key')
    return createDiagnostic(
      file,
      'PB800',
      requiredRange(document, problem.pointer),
      `${where || 'the test'} is missing the required key "${problem.key}"`,
    );
  const node = nodeAtPointer(document, problem.pointer);
  // (an empty value, `status:` and nothing after it, has no characters: the diagnostic goes on its key)
  const valueRange = rangeOf(node);
  const range = valueRange.end > valueRange.start ? valueRange : requiredRange(document, problem.pointer);
  const written = shownValue(node && isScalar(node) ? node.value : (node?.toJSON() as unknown));
  return createDiagnostic(
    file,
    'PB800',
    range,
    `${where || 'a playbook test'} must be ${expectedWords(problem)}, not ${written}`,
  );
}
