import { isScalar } from 'yaml';
import type { Check } from '../check-context.js';
import { rangeOf } from '../yaml/read-yaml.js';
import { closest } from '@kairoku-playbook/grammar';
import { nonNull, typeForMessage, valueFits } from '../types/type.js';
import { replaceFix, shown, shownValue } from '../diagnostic.js';
import { catastrophicPart } from './backtracking.js';

/** PB404: an input's default must fit its type, its min/max and its pattern. */
export const checkInputDefaults: Check = (context) => {
  for (const input of context.model.inputs) {
    const value = input.defaultValue?.value;
    if (!input.defaultValue || !input.type) continue;
    const range = rangeOf(input.defaultValue.node);
    if (!valueFits(value, input.type)) {
      const node = input.defaultValue.node;
      // (a number as written: 9007199254740993 reads as …992, and past 2^53 − 1 that is why it does not fit)
      const written =
        typeof value === 'number' && isScalar(node) && node.source ? shown(node.source) : shownValue(value);
      const inexact = typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value);
      // (a misspelt member of an enum: the member meant, written over it)
      const members =
        nonNull(input.type).kind === 'enum'
          ? (nonNull(input.type) as { members: readonly string[] }).members
          : [];
      const suggestion = typeof value === 'string' ? closest(value, members) : undefined;
      context.report(
        'PB404',
        range,
        `default ${written} of input "${shown(input.name)}" does not fit its type ${typeForMessage(input.type)}${inexact ? ': integers are exact only up to 9007199254740991 (2^53 − 1)' : ''}${suggestion ? `; did you mean "${shown(suggestion)}"?` : ''}`,
        { fix: replaceFix(range, suggestion && yamlText(suggestion)) },
      );
      continue;
    }
    if (typeof value === 'number') {
      if (input.min !== undefined && value < input.min) {
        context.report(
          'PB404',
          range,
          `default ${value} of input "${shown(input.name)}" is below its min ${input.min}`,
        );
      } else if (input.max !== undefined && value > input.max) {
        context.report(
          'PB404',
          range,
          `default ${value} of input "${shown(input.name)}" is above its max ${input.max}`,
        );
      }
    }
    // (a pattern that can backtrack catastrophically is PB108's, and is not run here: check would freeze)
    if (typeof value === 'string' && input.pattern && !catastrophicPart(input.pattern.value)) {
      let pattern: RegExp | undefined;
      try {
        pattern = new RegExp(input.pattern.value, 'u');
      } catch {
        pattern = undefined;
      }
      if (pattern && !pattern.test(value)) {
        context.report(
          'PB404',
          range,
          `default ${shownValue(value)} of input "${shown(input.name)}" does not match its pattern /${shown(input.pattern.value)}/`,
        );
      }
    }
  }
};

/** A string as a YAML value that reads back as that string: plain when it can be, else quoted. */
function yamlText(value: string): string {
  return /^[A-Za-z_][\w-]*$/.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value)
    ? value
    : JSON.stringify(value);
}
