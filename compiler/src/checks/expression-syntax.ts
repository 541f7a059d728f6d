import type { Check } from '../check-context.js';
import { shown } from '../diagnostic.js';

/**
 * PB400 (expression syntax) and PB406 (an unterminated `${{`): the grammar's syntax errors in templates and
 * conditions, and a `when` YAML read as a tag (`when: !inputs.strict`) instead of a condition.
 */
export const checkExpressionSyntax: Check = (context) => {
  for (const template of context.semantic.templates) {
    for (const error of template.errors) {
      const range = context.rangeIn(template.text, error.span.start, error.span.end);
      context.report(error.code === 'PB406' ? 'PB406' : 'PB400', range, error.message);
    }
    const mistake = template.tagMistake;
    if (mistake) {
      context.report(
        'PB400',
        { ...mistake.range },
        `YAML reads "${shown(mistake.tag)}" at the start of a value as a tag, not as an expression; quote the whole value: "${shown(mistake.written)}"`,
      );
    }
  }
};
