import { BUILTIN_FUNCTION_NAMES } from '@kairoku-playbook/grammar';
import type { Check } from '../check-context.js';
import { replaceFix, shown } from '../diagnostic.js';

/** PB402: a call of a function that is not built in, or with the wrong number of arguments. */
export const checkFunctions: Check = (context) => {
  for (const reference of context.semantic.referencesOf('function')) {
    const fn = reference.target;
    if (!fn) {
      const { suggestion, range } = reference;
      context.report(
        'PB402',
        range,
        `unknown function "${shown(reference.name)}"${suggestion ? `; did you mean "${shown(suggestion)}"?` : `; the functions are ${BUILTIN_FUNCTION_NAMES.join(', ')}`}`,
        { fix: replaceFix(range, suggestion) },
      );
      continue;
    }
    const count = reference.argumentCount;
    if (count >= fn.minArgs && count <= fn.maxArgs) continue;
    const expected =
      fn.maxArgs === Infinity
        ? `at least ${fn.minArgs}`
        : fn.minArgs === fn.maxArgs
          ? `${fn.minArgs}`
          : `${fn.minArgs} or ${fn.maxArgs}`;
    const { callSpan, template } = reference;
    context.report(
      'PB402',
      context.rangeIn(template.text, callSpan.start, callSpan.end),
      `${fn.name} takes ${expected} argument${expected.endsWith(' 1') || expected === '1' ? '' : 's'}, not ${count}: ${fn.signature}`,
    );
  }
};
