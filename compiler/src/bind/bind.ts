import {
  closest,
  isSingleExpression,
  parseCondition,
  parseTemplate,
  parseTypeExpression,
} from '@kairoku-playbook/grammar';
import type { Expr } from '@kairoku-playbook/grammar';
import type { Document } from 'yaml';
import { buildGraph } from '../graph/graph.js';
import { FIXED_ROLES } from '../model/model.js';
import type { FixedBase, PlaybookModel, TextRef } from '../model/model.js';
import { STRING, fromTypeExpr } from '../types/type.js';
import type { Type } from '../types/type.js';
import { ExpressionBinder } from './expressions.js';
import type { ExpressionReference, SymbolReference } from './references.js';
import { ScopeProvider } from './scope-provider.js';
import { ScalarLocator, SemanticModel } from './semantic-model.js';
import type { BoundTypeExpression } from './semantic-model.js';
import { templateSites } from './sites.js';
import type { TemplateSite } from './sites.js';
import type { BoundTemplate, TagMistake } from './template.js';

/**
 * The bind phase: resolves every reference of a playbook's model (needs, roles, role bases, loop targets,
 * every name in every template and condition) with one scope provider, parses and types every expression
 * and type expression, and returns all of it as the semantic model. It reports nothing.
 * `text` is the file as parsed.
 */
export function bind(
  file: string,
  text: string,
  model: PlaybookModel,
  document: Document.Parsed | undefined,
): SemanticModel {
  const graph = buildGraph(model.steps, model.stepByName);
  const scopes = new ScopeProvider(model, graph);
  const locator = new ScalarLocator(text);
  // (types first: the expressions read the inputs' and outputs' types)
  const typeExpressions = bindTypes(model);
  const references: SymbolReference[] = [];
  bindStructure(scopes, references);
  const templates: BoundTemplate[] = [];
  const expressionReferences: ExpressionReference[] = [];
  for (const site of templateSites(model)) {
    templates.push(bindTemplate(site, text, scopes, locator, expressionReferences));
  }
  for (const reference of expressionReferences) references.push(reference);
  return new SemanticModel(
    file,
    text,
    model,
    document,
    graph,
    scopes,
    templates,
    references,
    typeExpressions,
    locator,
  );
}

/**
 * Binds one template again after an edit of its text only (incremental.ts): the same site, scope and
 * provider, so it binds as `bind` would. Its expression references are pushed to `references`.
 */
export function rebindTemplate(
  template: BoundTemplate,
  text: string,
  scopes: ScopeProvider,
  locator: ScalarLocator,
  references: ExpressionReference[],
): BoundTemplate {
  const site: TemplateSite = {
    text: template.text,
    place: template.place,
    scope: template.scope,
    outcome: template.outcome,
    key: template.key,
  };
  return bindTemplate(site, text, scopes, locator, references);
}

/** Parses every input's and output's type; sets `type` on the declarations whose type parses. */
function bindTypes(model: PlaybookModel): BoundTypeExpression[] {
  const bound: BoundTypeExpression[] = [];
  const parse = (text: TextRef | undefined, owner: BoundTypeExpression['owner']): Type | undefined => {
    if (!text) return undefined;
    const result = parseTypeExpression(text.value);
    const type = result.errors.length === 0 && result.value ? fromTypeExpr(result.value) : undefined;
    bound.push({ owner, text, errors: result.errors, type });
    return type;
  };
  for (const input of model.inputs) input.type = parse(input.typeText, input);
  for (const step of [...model.steps, ...model.after]) {
    for (const output of step.outputs) output.type = parse(output.typeText, output);
  }
  return bound;
}

/** The references of the YAML structure: needs, roles, role bases, loop targets. */
function bindStructure(scopes: ScopeProvider, references: SymbolReference[]): void {
  const { model, graph } = scopes;
  const roleNames = [...model.roles.keys()];
  for (const step of [...model.steps, ...model.after]) {
    for (const need of step.needs) {
      const target = model.stepByName.get(need.name);
      const self = need.name === step.name;
      references.push({
        kind: 'need',
        name: need.name,
        range: need.range,
        from: step,
        target,
        self,
        suggestion: target || step.isAfter ? undefined : closest(need.name, scopes.stepNames, step.name),
      });
    }
    if (step.role) {
      const target = model.roles.get(step.role.name);
      references.push({
        kind: 'role',
        name: step.role.name,
        range: step.role.range,
        from: step,
        target,
        suggestion: target ? undefined : closest(step.role.name, roleNames),
      });
    }
    for (const outcome of step.outcomes) {
      const transition = outcome.transition;
      if (transition?.kind !== 'loop' || !transition.target) continue;
      const name = transition.target.name;
      const target = model.stepByName.get(name);
      let suggestion: string | undefined;
      if (!target && !step.isAfter) {
        const candidates = [step.name, ...graph.ancestorsOf(step.index).map((i) => model.steps[i]!.name)];
        suggestion = closest(name, candidates) ?? closest(name, scopes.stepNames);
      }
      references.push({
        kind: 'loop-target',
        name,
        range: transition.target.range,
        from: step,
        outcome,
        target,
        suggestion,
      });
    }
  }
  for (const role of model.roles.values()) {
    if (!role.keyRange || !role.base) continue;
    const fixed = (FIXED_ROLES as readonly string[]).includes(role.base.name);
    references.push({
      kind: 'role-base',
      name: role.base.name,
      range: role.base.range,
      from: role,
      target: fixed ? (role.base.name as FixedBase) : undefined,
      suggestion: fixed ? undefined : closest(role.base.name, FIXED_ROLES),
    });
  }
}

function bindTemplate(
  site: TemplateSite,
  text: string,
  scopes: ScopeProvider,
  locator: ScalarLocator,
  references: ExpressionReference[],
): BoundTemplate {
  const template: BoundTemplate = {
    text: site.text,
    place: site.place,
    owner: site.scope.owner ? { name: site.scope.owner.name, isAfter: site.scope.owner.isAfter } : undefined,
    outcome: site.outcome,
    template: undefined,
    condition: undefined,
    type: undefined,
    references: [],
    syntaxErrors: false,
    scope: site.scope,
    key: site.key,
    errors: [],
    tagMistake: undefined,
    types: NO_TYPES,
  };
  const tagMistake = readAsTag(site.text, text);
  if (tagMistake) {
    template.tagMistake = tagMistake;
    template.syntaxErrors = true;
    // The names in it count as used: the tag is the one mistake, not an unused input besides.
    for (const match of tagMistake.written.matchAll(/inputs\.([a-z][a-z0-9_-]*)/g))
      template.references.push({ kind: 'input', name: match[1]!, range: { ...tagMistake.range } });
    return template;
  }
  const binder = new ExpressionBinder(scopes, locator, template, references);
  if (site.place === 'when') {
    const result = parseCondition(site.text.value);
    template.errors = result.errors;
    template.syntaxErrors = result.errors.length > 0;
    template.condition = result.value;
    if (result.value) template.type = binder.infer(result.value);
    return template;
  }
  if (!site.text.value.includes('${{')) {
    template.type = STRING;
    return template;
  }
  const result = parseTemplate(site.text.value);
  template.errors = result.errors;
  template.syntaxErrors = result.errors.length > 0;
  template.template = result.value;
  if (!result.value) return template;
  let type = STRING;
  for (const part of result.value.parts) {
    if (part.kind === 'expression' && part.expr) {
      const partType = binder.infer(part.expr);
      if (isSingleExpression(result.value)) type = partType;
    }
  }
  template.type = type;
  return template;
}

/** The types of a template without operands to check: shared, never changed. */
const NO_TYPES: ReadonlyMap<Expr, Type> = new Map();

/**
 * `when: !inputs.strict` is a YAML tag followed by an empty value, not a negation: YAML reads a leading
 * `!` as a tag. What was written, tag included, is the mistake (PB400).
 */
function readAsTag(text: TextRef, source: string): TagMistake | undefined {
  const tag = text.node.tag;
  if (!tag || tag.startsWith('tag:yaml.org,2002:')) return undefined;
  const [valueStart, valueEnd] = text.node.range ?? [0, 0];
  const lineStart = source.lastIndexOf('\n', valueStart - 1) + 1;
  const bang = source.indexOf('!', lineStart);
  const start = bang >= 0 && bang < valueStart ? bang : valueStart;
  const end = Math.max(valueEnd, start + 1);
  const written = source.slice(start, end).replace(/\s+$/, '');
  return { tag, written, range: { start, end: start + written.length } };
}
