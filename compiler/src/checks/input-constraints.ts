import type { Check } from '../check-context.js';
import { nonNull } from '../types/type.js';
import { shown } from '../diagnostic.js';

/**
 * PB104: `pattern` and `multiline` apply to string inputs (pattern must be a valid regular expression),
 * `min`/`max` to numbers.
 */
export const checkInputConstraints: Check = (context) => {
  for (const input of context.model.inputs) {
    const base = input.type ? nonNull(input.type).kind : undefined;
    if (input.pattern) {
      try {
        new RegExp(input.pattern.value, 'u');
      } catch (error) {
        const reason =
          error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : 'invalid';
        context.report(
          'PB104',
          context.rangeIn(input.pattern, 0, input.pattern.value.length),
          `pattern of input "${shown(input.name)}" is not a valid regular expression: ${shown(reason, 200)}`,
        );
      }
      if (base && base !== 'string') {
        context.report(
          'PB104',
          context.rangeIn(input.pattern, 0, input.pattern.value.length),
          `"pattern" applies to string inputs; input "${shown(input.name)}" is ${base}`,
        );
      }
    }
    const misplaced = (key: string, applies: boolean, to: string) => {
      const range = input.fieldKeys.get(key);
      if (range && base && !applies) {
        context.report(
          'PB104',
          range,
          `"${shown(key)}" applies to ${to} inputs; input "${shown(input.name)}" is ${base}`,
        );
      }
    };
    misplaced('min', base === 'number' || base === 'integer', 'number and integer');
    misplaced('max', base === 'number' || base === 'integer', 'number and integer');
    misplaced('multiline', base === 'string', 'string');
    if (input.min !== undefined && input.max !== undefined && input.min > input.max) {
      context.report(
        'PB104',
        input.keyRange,
        `input "${shown(input.name)}" has min ${input.min} above its max ${input.max}`,
      );
    }
  }
};
