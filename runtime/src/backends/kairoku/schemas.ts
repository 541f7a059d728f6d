/**
 * The JSON Schemas of the Kairoku runner protocol, v1 (docs/kairoku-protocol.md): one per request and
 * one per response, plus the dispatch document, a curated event and the error body. They are kept
 * here as data, so the runtime, the reference runner and a bundled CLI all carry them without reading
 * files; `runtime/schema/kairoku/v1/*.schema.json` are the same schemas written out for other
 * implementations, and a test fails when the two differ (regenerate with
 * `KAIROKU_WRITE_SCHEMAS=1 npx vitest run runtime/test/backends/kairoku/schemas`).
 */

export const SCHEMA_BASE = 'https://kairoku.dev/schema/runner/v1/';
const DRAFT = 'http://json-schema.org/draft-07/schema#';

/** The bounds the schemas enforce (and the docs state). */
export const LIMITS = {
  /** curated events in one update (RF-003) */
  eventsPerUpdate: 50,
  /** characters of one curated event's text (RF-003) */
  eventText: 1000,
  /** a request body, in bytes */
  bodyBytes: 1024 * 1024,
  /** dispatches in one claim response */
  dispatchesPerClaim: 4,
  /** repositories a runner may name */
  repositories: 64,
  /** paths listed in a read-only check's finding */
  changedPaths: 100,
  /** characters of a reason or a summary */
  reason: 2000,
} as const;

const id = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:@-]{0,199}$' };
const text = (max: number) => ({ type: 'string', maxLength: max });
const count = { type: 'integer', minimum: 0 };
const runnerId = id;
const dispatchId = id;
const repository = { type: 'string', minLength: 1, maxLength: 1000 };
const machine = { type: 'string', minLength: 1, maxLength: 200 };

function schema(name: string, body: Record<string, unknown>): Record<string, unknown> {
  return { $schema: DRAFT, $id: `${SCHEMA_BASE}${name}.schema.json`, ...body };
}

function object(
  required: string[],
  properties: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, required, properties, ...extra };
}

export const errorSchema = schema(
  'error',
  object(['error'], {
    error: object(['code', 'message'], {
      code: {
        enum: [
          'unauthorized',
          'bad-request',
          'not-found',
          'method-not-allowed',
          'too-large',
          'unknown-runner',
          'unknown-dispatch',
          'not-held',
          'dispatch-ended',
          'still-holding',
          'internal',
        ],
      },
      message: text(4000),
      details: { type: 'array', maxItems: 50, items: { type: 'object' } },
    }),
  }),
);

export const eventSchema = schema(
  'event',
  object(['at', 'kind', 'text'], {
    at: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T', maxLength: 40 },
    kind: {
      enum: ['message', 'tool-call', 'tool-result', 'denial', 'phase', 'stderr', 'status', 'codegraph'],
    },
    text: text(LIMITS.eventText),
    tool: text(100),
  }),
);

const policy = object(['read', 'edit', 'write', 'network', 'run', 'mcp'], {
  read: { type: 'boolean' },
  edit: { type: 'boolean' },
  write: { type: 'boolean' },
  network: { type: 'boolean' },
  run: { anyOf: [{ type: 'boolean' }, { type: 'array', items: text(1000), maxItems: 200 }] },
  mcp: { anyOf: [{ type: 'boolean' }, { type: 'array', items: text(200), maxItems: 200 }] },
});

const nullableText = (max: number) => ({ anyOf: [text(max), { type: 'null' }] });

export const dispatchSchema = schema('dispatch', {
  ...object(
    [
      'id',
      'run',
      'playbook',
      'step',
      'attempt',
      'kind',
      'title',
      'repository',
      'baseBranch',
      'branch',
      'machine',
      'wallClockMs',
    ],
    {
      id: dispatchId,
      run: text(200),
      playbook: text(200),
      step: { type: 'string', pattern: '^(after\\.)?[a-z][a-z0-9_-]*$', maxLength: 200 },
      attempt: { type: 'integer', minimum: 1 },
      kind: { enum: ['agent', 'check'] },
      title: text(1000),
      repository,
      baseBranch: text(500),
      branch: text(500),
      machine: { anyOf: [machine, { type: 'null' }] },
      wallClockMs: { type: 'integer', minimum: 1 },
      agent: object(
        ['role', 'playbookRole', 'instructions', 'provider', 'model', 'mode', 'policy', 'readOnly'],
        {
          // Any string here, so that a runner can refuse a role it does not know (RF-009) one
          // dispatch at a time instead of discarding the whole claim response.
          role: text(100),
          playbookRole: text(200),
          instructions: nullableText(100_000),
          provider: nullableText(200),
          model: nullableText(200),
          mode: nullableText(200),
          policy,
          readOnly: { type: 'boolean' },
          firstMessage: text(1_000_000),
          outcomes: { type: 'array', items: text(200), maxItems: 200 },
          report: object(['url', 'token', 'tool'], {
            url: { type: 'string', pattern: '^https?://', maxLength: 1000 },
            token: { type: 'string', minLength: 16, maxLength: 200 },
            tool: { const: 'report_step_result' },
          }),
        },
      ),
      check: object(['commands', 'env', 'cwd'], {
        commands: { type: 'array', minItems: 1, maxItems: 200, items: text(10_000) },
        env: { type: 'object', additionalProperties: text(100_000) },
        cwd: nullableText(1000),
      }),
    },
  ),
  oneOf: [
    { properties: { kind: { const: 'agent' } }, required: ['agent'], not: { required: ['check'] } },
    { properties: { kind: { const: 'check' } }, required: ['check'], not: { required: ['agent'] } },
  ],
});

export const heartbeatRequestSchema = schema(
  'heartbeat.request',
  object(['runner', 'machine', 'version', 'capacity', 'repositories', 'held'], {
    runner: runnerId,
    machine,
    version: text(100),
    capacity: object(['running', 'max'], { running: count, max: count }),
    repositories: { type: 'array', maxItems: LIMITS.repositories, items: repository, uniqueItems: true },
    held: { type: 'array', maxItems: 1000, items: dispatchId, uniqueItems: true },
    draining: { type: 'boolean' },
  }),
);

export const heartbeatResponseSchema = schema(
  'heartbeat.response',
  object(['intervalMs', 'missLimit', 'cancel', 'drain'], {
    intervalMs: { type: 'integer', minimum: 1 },
    missLimit: { type: 'integer', minimum: 1 },
    cancel: { type: 'array', items: dispatchId },
    drain: { type: 'boolean' },
  }),
);

export const claimRequestSchema = schema(
  'claim.request',
  object(['runner', 'machine', 'repositories', 'free'], {
    runner: runnerId,
    machine,
    repositories: {
      type: 'array',
      minItems: 1,
      maxItems: LIMITS.repositories,
      items: repository,
      uniqueItems: true,
    },
    free: { type: 'integer', minimum: 1, maximum: 1000 },
  }),
);

export const claimResponseSchema = schema(
  'claim.response',
  object(['dispatches'], {
    dispatches: {
      type: 'array',
      maxItems: LIMITS.dispatchesPerClaim,
      items: { $ref: 'dispatch.schema.json' },
    },
  }),
);

const counts = object(['outcome', 'passed', 'failed', 'skipped', 'todo', 'exit_code', 'summary'], {
  outcome: { enum: ['pass', 'fail'] },
  passed: count,
  failed: count,
  skipped: count,
  todo: count,
  exit_code: { type: 'integer' },
  summary: text(LIMITS.reason),
});

export const updateRequestSchema = schema(
  'update.request',
  object(['runner', 'dispatch', 'seq', 'events'], {
    runner: runnerId,
    dispatch: dispatchId,
    seq: { type: 'integer', minimum: 1 },
    phase: { enum: ['preparing', 'running', 'tearing-down'] },
    events: {
      type: 'array',
      maxItems: LIMITS.eventsPerUpdate,
      items: { $ref: 'event.schema.json' },
    },
    terminal: object(['status'], {
      status: { enum: ['completed', 'failed', 'timed-out', 'canceled', 'refused', 'interrupted'] },
      reason: text(LIMITS.reason),
      exitCode: { type: ['integer', 'null'] },
      check: counts,
      worktreeChanges: { type: 'array', maxItems: LIMITS.changedPaths, items: text(1000) },
    }),
  }),
);

export const updateResponseSchema = schema(
  'update.response',
  object(['accepted', 'duplicate', 'cancel'], {
    accepted: { const: true },
    duplicate: { type: 'boolean' },
    cancel: { type: 'boolean' },
  }),
);

export const drainAckRequestSchema = schema(
  'drain-ack.request',
  object(['runner', 'held'], {
    runner: runnerId,
    held: { type: 'array', maxItems: 1000, items: dispatchId },
  }),
);

export const drainAckResponseSchema = schema(
  'drain-ack.response',
  object(['acknowledged'], { acknowledged: { const: true } }),
);

/** The runner's own loopback route, `GET /capacity` (RF-005). */
export const capacityResponseSchema = schema(
  'capacity.response',
  object(['running', 'max'], {
    running: count,
    max: count,
    draining: { type: 'boolean' },
    runner: runnerId,
  }),
);

/** Every schema, by file name (without `.schema.json`). */
export const SCHEMAS: Record<string, Record<string, unknown>> = {
  error: errorSchema,
  event: eventSchema,
  dispatch: dispatchSchema,
  'heartbeat.request': heartbeatRequestSchema,
  'heartbeat.response': heartbeatResponseSchema,
  'claim.request': claimRequestSchema,
  'claim.response': claimResponseSchema,
  'update.request': updateRequestSchema,
  'update.response': updateResponseSchema,
  'drain-ack.request': drainAckRequestSchema,
  'drain-ack.response': drainAckResponseSchema,
  'capacity.response': capacityResponseSchema,
};
