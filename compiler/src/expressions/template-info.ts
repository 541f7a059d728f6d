import type { Expr, Template } from '@kairoku-playbook/grammar';
import type { OffsetRange } from '../diagnostic.js';
import type { TextRef } from '../model/model.js';
import type { Type } from '../types/type.js';

/** Where a template or condition stands, which decides its scope and whether a secret may appear. */
export type Place =
  | 'title'
  | 'description'
  | 'prompt'
  | 'run'
  | 'env'
  | 'cwd'
  | 'when'
  | 'feedback'
  | 'gate-title'
  | 'gate-summary'
  | 'label'
  | 'output';

/** A name an expression refers to, for unused-declaration checks, the IR's derived inputs and the editor. */
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
