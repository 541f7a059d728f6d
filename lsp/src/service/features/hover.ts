/**
 * Hover: inside an expression, the type of the name under the cursor and where it comes from (an input, a
 * step's output, a context field, a function's signature, an outcome); on a step, input, role, output or
 * outcome anywhere, what it is; on any other key, its description from the playbook schema.
 */
import { getBuiltinFunction } from '@kairoku-playbook/grammar';
import { sayBounds, sayUnitBound } from '@kairoku-playbook/machine';
import type { RunBounds } from '@kairoku-playbook/machine';
import { code, describeSymbol, lineOf } from '../language/describe.js';
import { expressionAt, nameAt } from '../language/expression-at.js';
import type { ExpressionSite, NameAtCursor } from '../language/expression-at.js';
import { describeKey } from '../language/schema.js';
import { occurrenceAt, symbolIndex, symbolKey } from '../language/symbols.js';
import type { FileAnalysis, OffsetRange } from '../language/types.js';
import { pathAt, rangeOfNode, yamlDocument } from '../language/yaml-document.js';
import type { Node } from 'yaml';

export interface HoverResult {
  range: OffsetRange;
  /** Markdown */
  contents: string;
}

/**
 * `bounds`: the explorer's worst case of a run of this text (lsp/src/service/explore.ts), shown on the
 * playbook's `title` (the run's) and on each step and after-task (its own attempts, and why).
 */
export function hoverAt(analysis: FileAnalysis, offset: number, bounds?: RunBounds): HoverResult | undefined {
  const site = expressionAt(analysis, offset);
  if (site) return expressionHover(analysis, site);
  const occurrence = occurrenceAt(analysis, offset);
  if (occurrence) {
    const contents = describeSymbol(analysis, occurrence.symbol);
    const { kind, name } = occurrence.symbol;
    const unitName = kind === 'after' ? `after.${name}` : name;
    const unit =
      kind === 'step' || kind === 'after' ? bounds?.units.find((u) => u.name === unitName) : undefined;
    const bound = unit && `**Bound:** ${sayUnitBound(unit, bounds!.explored)}`;
    if (contents) return { range: occurrence.range, contents: bound ? `${contents}\n\n${bound}` : contents };
  }
  const hover = keyHover(analysis, offset);
  if (hover && bounds && hover.key.length === 1 && hover.key[0] === 'title')
    return { range: hover.range, contents: `${hover.contents}\n\n**A run takes** ${sayBounds(bounds)}.` };
  return hover && { range: hover.range, contents: hover.contents };
}

function expressionHover(analysis: FileAnalysis, site: ExpressionSite): HoverResult | undefined {
  const name = nameAt(site.expr, site.cursor);
  if (!name) return undefined;
  const range = site.context.rangeIn(site.info.text, name.span.start, name.span.end);
  const contents = describeName(analysis, site, name);
  return contents ? { range, contents } : undefined;
}

function describeName(analysis: FileAnalysis, site: ExpressionSite, name: NameAtCursor): string | undefined {
  const scopes = analysis.semantic?.scopes;
  if (!scopes) return undefined;
  const scope = site.info.scope;
  switch (name.kind) {
    case 'function': {
      const fn = getBuiltinFunction(name.name);
      return fn ? `\`\`\`\n${fn.signature}\n\`\`\`\n\n${fn.description}` : undefined;
    }
    case 'string': {
      const index = symbolIndex(analysis);
      const step = name.comparedWith ? scopes.outcomesComparedWith(scope, name.comparedWith) : undefined;
      const symbol = step ? index.symbols.get(symbolKey('outcome', name.value, step)) : undefined;
      return symbol ? describeSymbol(analysis, symbol) : undefined;
    }
    case 'chain': {
      const member = scopes.describeChain(scope, name.chain);
      if (!member) return undefined;
      const label = name.chain.join('.');
      const head = member.type ? `${label}: ${member.type}` : label;
      const origin = member.declaredAt ? `Declared on ${lineOf(analysis, member.declaredAt)}.` : undefined;
      return [`\`\`\`\n${head}\n\`\`\``, member.doc, origin].filter(Boolean).join('\n\n');
    }
  }
}

function keyHover(analysis: FileAnalysis, offset: number): (HoverResult & { key: unknown[] }) | undefined {
  const document = yamlDocument(analysis);
  if (!document) return undefined;
  const { steps, onKey } = pathAt(document, offset);
  if (!onKey || steps.length === 0) return undefined;
  const last = steps[steps.length - 1]!;
  const range = rangeOfNode(last.pair?.key as Node | null | undefined);
  const description = describeKey(steps.map((s) => s.key));
  if (!range || !description) return undefined;
  return { range, contents: `${code(String(last.key))}: ${description}`, key: steps.map((s) => s.key) };
}
