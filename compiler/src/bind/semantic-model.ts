import type { GrammarError } from '@kairoku-playbook/grammar';
import type { Document, Scalar } from 'yaml';
import type { OffsetRange } from '../diagnostic.js';
import type { Graph } from '../graph/graph.js';
import type { InputDecl, OutputDecl, PlaybookModel, TextRef } from '../model/model.js';
import type { Type } from '../types/type.js';
import { buildScalarMap, mapValueRange } from '../yaml/scalar-map.js';
import type { ScalarMap } from '../yaml/scalar-map.js';
import { unboundMentions } from './mentions.js';
import type { Mentions } from './mentions.js';
import type { Locator, SymbolReference } from './references.js';
import type { ScopeProvider } from './scope-provider.js';
import type { BoundTemplate } from './template.js';

/** An input's or an output's type expression, parsed. */
export interface BoundTypeExpression {
  /** the input or output that declares it (its `type` is set when the expression parses) */
  owner: InputDecl | OutputDecl;
  text: TextRef;
  /** PB403, spans in the scalar's value */
  errors: readonly GrammarError[];
  type: Type | undefined;
}

/** Maps spans of scalars' decoded values to the file, building each scalar's offset map once. */
export class ScalarLocator implements Locator {
  private maps = new WeakMap<Scalar, ScalarMap>();

  /** `text`: the file as parsed (scalar maps read it the way the parser did; same offsets as the file). */
  constructor(private text: string) {}

  /** After an edit moved the scalars (incremental.ts): read the new text, forget every map built. */
  moveTo(text: string): void {
    this.text = text;
    this.maps = new WeakMap();
  }

  rangeIn(ref: TextRef, start: number, end: number): OffsetRange {
    let map = this.maps.get(ref.node);
    if (!map) {
      map = buildScalarMap(this.text, ref.node);
      this.maps.set(ref.node, map);
    }
    return mapValueRange(map, start, end);
  }
}

/**
 * What binding makes of one playbook, and all the checks read: the model, the needs graph, every template
 * parsed, bound and typed, every type expression parsed, and every reference resolved (the reference
 * index), with the scope provider that resolved them. Nothing changes it after `bind`.
 */
export class SemanticModel implements Locator {
  private mentions: Mentions | undefined;
  private byKind: Map<SymbolReference['kind'], SymbolReference[]> | undefined;

  constructor(
    readonly file: string,
    /** the text as parsed: the file's text, each lone CR made LF (same length, same offsets) */
    readonly text: string,
    readonly model: PlaybookModel,
    /** the YAML document the model was built from, for what looks past the model */
    readonly document: Document.Parsed | undefined,
    readonly graph: Graph,
    readonly scopes: ScopeProvider,
    /** every template and condition of the playbook, in the order `templateSites` lists them */
    readonly templates: readonly BoundTemplate[],
    /** every reference of the playbook, resolved or not */
    readonly references: readonly SymbolReference[],
    readonly typeExpressions: readonly BoundTypeExpression[],
    /** maps spans to the file (the references share it; an edit's analysis moves it to the new text) */
    readonly locator: Locator,
  ) {}

  /** The source range of the characters [start, end) of a scalar's decoded value. */
  rangeIn(ref: TextRef, start: number, end: number): OffsetRange {
    return this.locator.rangeIn(ref, start, end);
  }

  /** The references of one kind, in the order of `references`. */
  referencesOf<K extends SymbolReference['kind']>(kind: K): readonly Extract<SymbolReference, { kind: K }>[] {
    if (!this.byKind) {
      const byKind = new Map<SymbolReference['kind'], SymbolReference[]>();
      for (const reference of this.references) {
        const list = byKind.get(reference.kind);
        if (list) list.push(reference);
        else byKind.set(reference.kind, [reference]);
      }
      this.byKind = byKind;
    }
    return (this.byKind.get(kind) ?? []) as Extract<SymbolReference, { kind: K }>[];
  }

  /**
   * The inputs and outputs the file mentions where nothing was bound (a template with a syntax error, a
   * misspelt key's value): they are not unused. Worked out when first asked.
   */
  unboundMentions(): Mentions {
    return (this.mentions ??= unboundMentions(this.templates, this.document));
  }
}
