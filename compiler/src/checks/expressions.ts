import { isSingleExpression, parseCondition, parseTemplate } from '@kairoku-playbook/grammar';
import type { Check, CheckContext } from '../check-context.js';
import { templateSites } from '../expressions/sites.js';
import type { TemplateInfo } from '../expressions/template-info.js';
import type { TextRef } from '../model/model.js';
import { ExpressionChecker } from '../expressions/typecheck.js';
import { STRING, typeForMessage } from '../types/type.js';
import { shown } from '../diagnostic.js';

/**
 * Parses every template and condition (PB400, PB406), binds and type-checks their expressions
 * (PB202–PB206, PB209, PB401, PB402, PB407) and checks that `when` is boolean (PB405).
 */
export const checkExpressions: Check = (context) => {
  for (const site of templateSites(context.model)) {
    const info: TemplateInfo = {
      text: site.text,
      place: site.place,
      owner: site.scope.owner
        ? { name: site.scope.owner.name, isAfter: site.scope.owner.isAfter }
        : undefined,
      outcome: site.outcome,
      template: undefined,
      condition: undefined,
      type: undefined,
      references: [],
      syntaxErrors: false,
    };
    context.templates.push(info);
    if (readAsTag(context, site.text, info)) continue;
    const checker = new ExpressionChecker(context, info, site.scope);
    if (site.place === 'when') {
      const result = parseCondition(site.text.value);
      info.syntaxErrors = result.errors.length > 0;
      for (const error of result.errors) {
        context.report(
          error.code,
          context.rangeIn(site.text, error.span.start, error.span.end),
          error.message,
        );
      }
      info.condition = result.value;
      if (!result.value) continue;
      const type = checker.infer(result.value);
      info.type = type;
      if (type.kind === 'any' || type.kind === 'boolean' || result.errors.length) continue;
      const range = context.rangeIn(site.text, result.value.span.start, result.value.span.end);
      if (type.kind === 'nullable' && type.inner.kind === 'boolean') {
        context.report(
          'PB401',
          range,
          '"when" needs a boolean, but this may be null; guard it with default(…, false)',
        );
      } else {
        context.report('PB405', range, `"when" must be a boolean expression, not ${typeForMessage(type)}`);
      }
      continue;
    }
    if (!site.text.value.includes('${{')) {
      info.type = STRING;
      continue;
    }
    const result = parseTemplate(site.text.value);
    info.syntaxErrors = result.errors.length > 0;
    for (const error of result.errors) {
      context.report(error.code, context.rangeIn(site.text, error.span.start, error.span.end), error.message);
    }
    const template = result.value;
    info.template = template;
    if (!template) continue;
    let type = STRING;
    for (const part of template.parts) {
      if (part.kind === 'expression' && part.expr) {
        const partType = checker.infer(part.expr);
        if (isSingleExpression(template)) type = partType;
      }
    }
    info.type = type;
  }
};

/**
 * `when: !inputs.strict` is a YAML tag followed by an empty value, not a negation: YAML reads a leading
 * `!` as a tag. Report that once, on the characters written, and count the names in it as used so no
 * "unused input" follows from the same mistake.
 */
function readAsTag(context: CheckContext, text: TextRef, info: TemplateInfo): boolean {
  const tag = text.node.tag;
  if (!tag || tag.startsWith('tag:yaml.org,2002:')) return false;
  const [valueStart, valueEnd] = text.node.range ?? [0, 0];
  const lineStart = context.text.lastIndexOf('\n', valueStart - 1) + 1;
  const bang = context.text.indexOf('!', lineStart);
  const start = bang >= 0 && bang < valueStart ? bang : valueStart;
  const end = Math.max(valueEnd, start + 1);
  const written = context.text.slice(start, end).replace(/\s+$/, '');
  context.report(
    'PB400',
    { start, end: start + written.length },
    `YAML reads "${shown(tag)}" at the start of a value as a tag, not as an expression; quote the whole value: "${shown(written)}"`,
  );
  info.syntaxErrors = true;
  for (const match of written.matchAll(/inputs\.([a-z][a-z0-9_-]*)/g)) {
    info.references.push({ kind: 'input', name: match[1]!, range: { start, end: start + written.length } });
  }
  return true;
}
