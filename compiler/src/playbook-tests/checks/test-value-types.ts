import { isNode } from 'yaml';
import type { Node } from 'yaml';
import { shown, shownValue } from '../../diagnostic.js';
import { typeForMessage, valueFits } from '../../types/type.js';
import type { Type } from '../../types/type.js';
import { rangeOf } from '../../yaml/read-yaml.js';
import type { TestCheck } from '../test-context.js';

/**
 * PB808: a value that does not fit its declared type: an output of a scripted report (the step's output
 * type) or an input of the run (the input's type).
 */
export const checkTestValueTypes: TestCheck = (context) => {
  for (const site of context.sites) {
    let type: Type | undefined;
    let what: string;
    if (site.kind === 'input') {
      type = context.playbook.inputs.find((i) => i.name === site.name)?.type;
      what = `input "${shown(site.name)}"`;
    } else if (site.kind === 'output' && site.step !== undefined) {
      const step = context.stepNamed(site.step, site.after);
      type = step?.outputs.find((o) => o.name === site.name)?.type;
      what = `output "${shown(site.name)}" of ${site.after ? 'after-task' : 'step'} "${shown(site.step)}"`;
    } else continue;
    if (!type) continue;
    const value = plain(site.value);
    if (valueFits(value, type)) continue;
    // (a value with no characters, `branch:` and nothing after it, is pointed at by its name)
    const valueRange = rangeOf(site.value);
    context.report(
      'PB808',
      valueRange.end > valueRange.start ? valueRange : site.range,
      `${shownValue(value)} does not fit the type ${typeForMessage(type)} of ${what}`,
    );
  }
};

function plain(node: Node | null): unknown {
  if (node === null || node === undefined) return null;
  const value: unknown = isNode(node) ? node.toJSON() : node;
  return typeof value === 'bigint' ? Number(value) : value;
}
