import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';

/**
 * The JSON Schemas of the API's requests and answers (api-types.ts in schema form), checked with ajv:
 * a request that does not fit is a 400 that points at the field (a JSON pointer); an answer that does
 * not fit is a bug the server reports as a 500 rather than send.
 */

const ajv = new Ajv({ allErrors: false, strict: false });

const text = { type: 'string', maxLength: 100_000 } as const;
const name = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const REQUEST_SCHEMAS = {
  start: {
    type: 'object',
    required: ['playbook', 'inputs'],
    additionalProperties: false,
    properties: {
      playbook: { type: 'string', minLength: 1, maxLength: 4096 },
      inputs: { type: 'object' },
      options: {
        type: 'object',
        additionalProperties: false,
        properties: {
          newAgent: { type: 'boolean' },
          worktree: { type: 'boolean' },
          provider: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', maxLength: 100 },
          // A model name as a provider spells it (`claude-sonnet-4-5`, `openai/gpt-5`): no blank, no control character.
          model: { type: 'string', pattern: '^[^\\s\\u0000-\\u001f\\u007f]+$', maxLength: 200 },
        },
      },
    },
  },
  restart: {
    type: 'object',
    required: ['step'],
    additionalProperties: false,
    properties: { step: name },
  },
  decide: {
    type: 'object',
    required: ['choice'],
    additionalProperties: false,
    properties: { choice: name, comment: text },
  },
  nudge: {
    type: 'object',
    required: ['message'],
    additionalProperties: false,
    properties: { message: { ...text, minLength: 1 } },
  },
  cancel: { type: 'object', additionalProperties: false, properties: { reason: text } },
  empty: { type: 'object', additionalProperties: false, properties: {} },
} as const;

const refusal = {
  type: 'object',
  required: ['code', 'message'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' },
    message: { type: 'string' },
    field: { type: 'string' },
  },
} as const;

const runListItem = {
  type: 'object',
  required: ['id', 'playbook', 'title', 'status', 'startedAt', 'archived', 'seen', 'waiting'],
  properties: {
    id: { type: 'string' },
    playbook: { type: 'string' },
    title: { type: 'string' },
    status: { enum: ['running', 'paused', 'completed', 'failed', 'canceled'] },
    startedAt: { type: 'string' },
    endedAt: { type: 'string' },
    archived: { type: 'boolean' },
    seen: { type: 'boolean' },
    waiting: { type: 'integer', minimum: 0 },
  },
} as const;

const stepDetail = {
  type: 'object',
  required: [
    'name',
    'kind',
    'status',
    'outcome',
    'summary',
    'outputs',
    'reason',
    'attempts',
    'activity',
    'canNudge',
    'canRetry',
  ],
  properties: {
    name: { type: 'string' },
    kind: { enum: ['agent', 'check', 'gate'] },
    status: { type: 'string' },
    attempts: {
      type: 'array',
      items: {
        type: 'object',
        required: ['attempt', 'startedAt'],
        properties: {
          attempt: { type: 'integer', minimum: 1 },
          startedAt: { type: 'string' },
          outcome: { type: 'string' },
          ended: { enum: ['lost', 'timeout', 'stopped', 'canceled', 'read-only'] },
        },
      },
    },
    activity: {
      type: 'array',
      items: {
        type: 'object',
        required: ['at', 'kind', 'text'],
        additionalProperties: false,
        properties: {
          at: { type: 'string' },
          kind: { type: 'string' },
          attempt: { type: 'integer', minimum: 1 },
          text: { type: 'string' },
          count: { type: 'integer', minimum: 2 },
        },
      },
    },
    canNudge: { type: 'boolean' },
    canRetry: { type: 'boolean' },
    startable: { type: 'boolean' },
  },
} as const;

const runDetail = {
  type: 'object',
  required: ['run', 'graph', 'steps', 'after', 'actions', 'version'],
  properties: {
    run: {
      ...runListItem,
      required: [...runListItem.required, 'backend', 'inputs'],
      properties: { ...runListItem.properties, backend: { type: 'string' } },
    },
    graph: {
      type: 'object',
      required: ['nodes', 'loops'],
      properties: { nodes: { type: 'array' }, loops: { type: 'array' } },
    },
    steps: { type: 'array', items: stepDetail },
    after: { type: 'array', items: stepDetail },
    actions: {
      type: 'object',
      required: ['cancel', 'pause', 'resume', 'archive', 'restartFrom'],
      properties: { restartFrom: { type: 'array', items: { type: 'string' } } },
    },
    version: { type: 'integer' },
  },
} as const;

const playbookCard = {
  type: 'object',
  required: ['id', 'title', 'diagnostics', 'canStart', 'inputs', 'startOptions'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    diagnostics: { type: 'array' },
    canStart: { type: 'boolean' },
    inputs: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'type', 'required', 'secret'],
        properties: { name: { type: 'string' }, required: { type: 'boolean' }, secret: { type: 'boolean' } },
      },
    },
  },
} as const;

export const ANSWER_SCHEMAS = {
  refusal: { type: 'object', required: ['refusal'], additionalProperties: false, properties: { refusal } },
  playbooks: {
    type: 'object',
    required: ['playbooks'],
    properties: { playbooks: { type: 'array', items: playbookCard } },
  },
  started: {
    type: 'object',
    required: ['run', 'warnings'],
    properties: { run: runListItem, warnings: { type: 'array', items: { type: 'string' } } },
  },
  runs: { type: 'object', required: ['runs'], properties: { runs: { type: 'array', items: runListItem } } },
  run: runDetail,
} as const;

export type RequestKind = keyof typeof REQUEST_SCHEMAS;
export type AnswerKind = keyof typeof ANSWER_SCHEMAS;

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
