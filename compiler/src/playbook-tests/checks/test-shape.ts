import type { ErrorObject } from 'ajv';
import { isScalar } from 'yaml';
import type { Document, Node } from 'yaml';
import { closest } from '@kairoku-playbook/grammar';
import { createDiagnostic, replaceFix, shown, shownValue } from '../../diagnostic.js';
import type { Diagnostic } from '../../diagnostic.js';
import { validate as validateAgainstTestSchema } from '../../generated/test-validator.js';
import { nodeAtPointer, pairAtPointer, rangeOf, requiredRange } from '../../yaml/read-yaml.js';

interface StandaloneValidator {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

interface SchemaNode {
  properties?: Record<string, unknown>;
  enum?: unknown[];
  type?: string | string[];
  minimum?: number;
}

/**
 * PB800: where a playbook test does not fit its schema (grammar/schema/playbook-test.schema.json): an
 * unknown key, a missing one, a value of the wrong shape. One mistake, one diagnostic: a value is reported
 * once, by its first failing keyword, and not again for what lies inside it.
 */
export function checkTestShape(file: string, document: Document.Parsed, value: unknown): Diagnostic[] {
  const validate = validateAgainstTestSchema as StandaloneValidator;
  if (validate(value)) return [];
  const diagnostics: Diagnostic[] = [];
  const reportedAt: string[] = [];
  const errors = validate.errors ?? [];
  // `{ choise: approve }` is one mistake: its unknown key says "did you mean "choice"?", not also that
  // "choice" is missing.
  const suggested = suggestedKeys(errors);
  for (const error of errors) {
    const path = error.instancePath;
    if (reportedAt.some((p) => path === p || path.startsWith(`${p}/`))) continue;
    const parent = (error.parentSchema ?? {}) as SchemaNode;
    const where = describe(path);
    if (error.keyword === 'additionalProperties') {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const pair = pairAtPointer(document, path, key);
      const allowed = Object.keys(parent.properties ?? {});
      const suggestion = closest(key, allowed);
      const range = rangeOf(pair?.key as Node);
      diagnostics.push(
        createDiagnostic(
          file,
          'PB800',
          range,
          `unknown key "${shown(key)}"${where ? ` in ${where}` : ' in a playbook test'}${
            suggestion ? `; did you mean "${suggestion}"?` : `; expected ${allowed.join(', ')}`
          }`,
          { fix: isScalar(pair?.key) ? replaceFix(range, suggestion) : undefined },
        ),
      );
      reportedAt.push(`${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      continue;
    }
    if (error.keyword === 'required') {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      if (suggested.has(`${path}\u0000${missing}`)) continue;
      diagnostics.push(
        createDiagnostic(
          file,
          'PB800',
          requiredRange(document, path),
          `${where || 'the test'} is missing the required key "${missing}"`,
        ),
      );
      continue;
    }
    reportedAt.push(path);
    const node = nodeAtPointer(document, path);
    // (an empty value, `status:` and nothing after it, has no characters: the diagnostic goes on its key)
    const valueRange = rangeOf(node);
    const range = valueRange.end > valueRange.start ? valueRange : requiredRange(document, path);
    const written = shownValue(node && isScalar(node) ? node.value : (node?.toJSON() as unknown));
    const expected = expectedWords(error.keyword, parent, error.message);
    diagnostics.push(
      createDiagnostic(
        file,
        'PB800',
        range,
        `${where || 'a playbook test'} must be ${expected}, not ${written}`,
      ),
    );
  }
  return diagnostics;
}

/** The keys an unknown key's did-you-mean names, by the path of their mapping. */
function suggestedKeys(errors: readonly ErrorObject[]): Set<string> {
  const suggested = new Set<string>();
  for (const error of errors)
    if (error.keyword === 'additionalProperties') {
      const key = String((error.params as { additionalProperty: string }).additionalProperty);
      const suggestion = closest(
        key,
        Object.keys(((error.parentSchema ?? {}) as SchemaNode).properties ?? {}),
      );
      if (suggestion) suggested.add(`${error.instancePath}\u0000${suggestion}`);
    }
  return suggested;
}

/** What a value that does not fit must be instead, in words. */
function expectedWords(keyword: string, parent: SchemaNode, message: string | undefined): string {
  if (keyword === 'enum') return `one of ${(parent.enum ?? []).join(', ')}`;
  if (keyword === 'minimum') return `at least ${String(parent.minimum)}`;
  if (keyword === 'type') return typeWords(parent.type);
  return message ?? 'valid';
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  array: 'a list',
  string: 'text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
};

function typeWords(type: string | string[] | undefined): string {
  const types = Array.isArray(type) ? type : type ? [type] : [];
  return types.map((t) => TYPE_WORDS[t] ?? t).join(' or ');
}

/** `/steps/qa/0/outcome` → `steps.qa[0].outcome`. */
function describe(pointer: string): string {
  let text = '';
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    text += /^\d+$/.test(segment) ? `[${segment}]` : text ? `.${segment}` : segment;
  }
  return text;
}
