import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ANSWER_SCHEMAS, REQUEST_SCHEMAS } from '@kairoku-playbook/protocol';
import type { AnswerKind, RequestKind } from '@kairoku-playbook/protocol';

export { REQUEST_SCHEMAS };
export type { AnswerKind, RequestKind };

/**
 * The JSON Schemas of the API's requests and answers (generated from their types in
 * `@kairoku-playbook/protocol`, the one source of the API), checked with ajv:
 * a request that does not fit is a 400 that points at the field (a JSON pointer); an answer that does
 * not fit is a bug the server reports as a 500 rather than send.
 */

const ajv = new Ajv({ allErrors: false, strict: false });

const requestValidators = new Map<string, ValidateFunction>();
const answerValidators = new Map<string, ValidateFunction>();

function validatorOf(cache: Map<string, ValidateFunction>, kind: string, schema: object): ValidateFunction {
  let validate = cache.get(kind);
  if (!validate) cache.set(kind, (validate = ajv.compile(schema)));
  return validate;
}

/** Undefined when the body fits; else the first problem, with where it is. */
export function checkRequest(
  kind: RequestKind,
  body: unknown,
): { message: string; field: string } | undefined {
  const validate = validatorOf(requestValidators, kind, REQUEST_SCHEMAS[kind]);
  if (validate(body)) return undefined;
  return describe(validate.errors?.[0]);
}

/** Undefined when the answer fits its schema; else why not (a bug of the server). */
export function checkAnswer(kind: AnswerKind, answer: unknown): string | undefined {
  const validate = validatorOf(answerValidators, kind, ANSWER_SCHEMAS[kind]);
  if (validate(answer)) return undefined;
  const problem = describe(validate.errors?.[0]);
  return `${problem.field || '/'} ${problem.message}`;
}

function describe(error: ErrorObject | undefined): { message: string; field: string } {
  if (!error) return { message: 'the body does not fit', field: '' };
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return {
      message: `${error.instancePath || 'the body'} has no field "${extra}"`,
      field: `${error.instancePath}/${extra}`,
    };
  }
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return { message: `"${missing}" is required`, field: `${error.instancePath}/${missing}` };
  }
  return {
    message: `${error.instancePath || 'the body'} ${error.message ?? 'does not fit'}`,
    field: error.instancePath,
  };
}
