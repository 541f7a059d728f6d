import { isMap } from 'yaml';
import type { Document, Node, YAMLMap } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import { createDiagnostic, shown, shownList } from '../../diagnostic.js';
import type { Diagnostic, OffsetRange } from '../../diagnostic.js';
import type { InputDecl, PlaybookModel } from '../../model/model.js';
import { findPair, rangeOf, requiredRange } from '../../yaml/read-yaml.js';
import type { TestSite } from '../sites.js';
import type { TestCheck } from '../test-context.js';
import { missingInputsFix } from './test-inputs-fix.js';

/**
 * PB810: a required input (no default) the test does not give. `test` has no other source of inputs,
 * so its run could not start. Not said of an input the test gives under a misspelt name (PB809 names it),
 * nor of a test whose shape has a mistake (PB800: `inptus:` may hold them). One diagnostic per test, on its `inputs` key, or
 * on its first key when it has none.
 */
export const checkMissingTestInputs: TestCheck = (context) => {
  if (context.test.misshapen) return;
  const missing = missingTestInputs(context.document, context.sites, context.playbook);
  if (!missing) return;
  const fix = missingInputsFix(context.document, context.test.text, missing.inputs);
  context.report('PB810', missing.range, missing.message, { fix });
};

/** PB810 of an empty test file: a test of nothing, whose run still needs the required inputs. */
export function emptyTestMissingInputs(file: string, playbook: PlaybookModel): Diagnostic | undefined {
  const missing = missingTestInputs(undefined, [], playbook);
  const fix = missing && missingInputsFix(undefined, '', missing.inputs);
  return missing && createDiagnostic(file, 'PB810', missing.range, missing.message, { fix });
}

/** Where and what PB810 says of a test (`document` undefined: an empty file, which gives nothing). */
function missingTestInputs(
  document: Document.Parsed | undefined,
  sites: readonly TestSite[],
  playbook: PlaybookModel,
): { range: OffsetRange; message: string; inputs: InputDecl[] } | undefined {
  const root = document?.contents;
  if (root != null && !isMap(root)) return undefined; // (a test must be a mapping: PB800)
  const inputsPair = isMap(root) ? findPair(root as YAMLMap, 'inputs') : undefined;
  if (inputsPair && inputsPair.value != null && !isMap(inputsPair.value)) return undefined;
  const declared = playbook.inputs.map((input) => input.name);
  const given = new Set<string>();
  for (const site of sites) {
    if (site.kind !== 'input') continue;
    given.add(site.name);
    // (a misspelt input is PB809's, with its did-you-mean)
    if (!declared.includes(site.name)) given.add(closest(site.name, declared) ?? site.name);
  }
  const inputs = playbook.inputs.filter(
    (input) => input.required && !input.defaultValue && !given.has(input.name),
  );
  if (!inputs.length) return undefined;
  const missing = inputs.map((input) => input.name);
  const range = inputsPair
    ? rangeOf(inputsPair.key as Node)
    : document
      ? requiredRange(document, '')
      : { start: 0, end: 0 };
  const name = playbook.file.slice(playbook.file.lastIndexOf('/') + 1);
  const what =
    missing.length === 1 ? `required input "${shown(missing[0]!)}"` : `required inputs ${shownList(missing)}`;
  const them = missing.length === 1 ? 'it' : 'them';
  return {
    range,
    inputs,
    message: `the test gives no ${what}: ${name} cannot start a run without ${them}; give ${them} under inputs`,
  };
}
