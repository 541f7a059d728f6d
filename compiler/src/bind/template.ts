import type { Expr, GrammarError, Template } from '@kairoku-playbook/grammar';
import type { OffsetRange } from '../diagnostic.js';
import type { TextRef } from '../model/model.js';
import type { Type } from '../types/type.js';
import type { Place, Scope } from './scope-provider.js';

/**
 * A declaration a template reads, resolved: for unused-declaration checks, the IR's derived inputs and the
 * editor. (Every reference, resolved or not, is in the semantic model's reference index.)
 */
export type Reference =
  | { kind: 'input'; name: string; range: OffsetRange }
  | { kind: 'step'; step: string; range: OffsetRange }
  | { kind: 'output'; step: string; output: string; range: OffsetRange }
  | { kind: 'outcome'; step: string; outcome: string; range: OffsetRange };

export interface TemplateInfo {
  text: TextRef;
  place: Place;
  /** the step or after-task that owns it; undefined for the playbook's own title, labels and outputs */
  owner: { name: string; isAfter: boolean } | undefined;
  /** for a transition's feedback: the outcome or choice it belongs to */
  outcome: string | undefined;
  /** a template (text with `${{ }}`) or, for `when`, a bare condition */
  template: Template | undefined;
  condition: Expr | undefined;
  /** the type of the whole value: string for text, the expression's type for a single `${{ }}` */
  type: Type | undefined;
  references: Reference[];
  /** the text had syntax errors (PB400, PB406), so some of its references may not be in `references` */
  syntaxErrors: boolean;
}

/**
 * A `when: !inputs.strict`: YAML read the leading `!` as a tag, so the value is not the condition written
 * (PB400). `range` covers what was written, tag included.
 */
export interface TagMistake {
  tag: string;
  written: string;
  range: OffsetRange;
}

/** A template or condition as binding leaves it: parsed, in its scope, every node typed. */
export interface BoundTemplate extends TemplateInfo {
  scope: Scope;
  /** for labels and env: the key */
  key: string | undefined;
  /** the grammar's syntax errors (PB400, PB406), spans in the scalar's value */
  errors: readonly GrammarError[];
  /** a value YAML read as a tag instead of a condition; then nothing else of it is bound */
  tagMistake: TagMistake | undefined;
  /** the type of each operand (of `!`, a binary operator, an index, a call) of `template` or `condition` */
  types: ReadonlyMap<Expr, Type>;
}
