/**
 * The shape of the params of every request and notification the server handles (its own and those the
 * connection handles for it: initialize, $/cancelRequest, $/setTrace, …), checked before a message reaches
 * a handler, so a handler never meets a null text, a string line or a negative character. A method not
 * listed is passed on as it is (the connection answers an unknown request with MethodNotFound).
 * Unknown fields are allowed: the protocol grows, and clients send what they support.
 */

/** A check: what is wrong with the value at `at`, or undefined. */
type Check = (value: unknown, at: string) => string | undefined;

/** LSP's `uinteger` and `integer` ranges. */
const UINTEGER_MAX = 2 ** 31 - 1;
const INTEGER_MIN = -(2 ** 31);

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

const any: Check = () => undefined;

const string: Check = (value, at) =>
  typeof value === 'string' ? undefined : `${at} must be a string, not ${describe(value)}`;

const boolean: Check = (value, at) =>
  typeof value === 'boolean' ? undefined : `${at} must be true or false, not ${describe(value)}`;

function wholeNumber(min: number, max: number): Check {
  return (value, at) =>
    typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max
      ? undefined
      : `${at} must be a whole number from ${min} to ${max}, not ${describe(value)}`;
}

const uinteger = wholeNumber(0, UINTEGER_MAX);
const integer = wholeNumber(INTEGER_MIN, UINTEGER_MAX);

function oneOf(...checks: Check[]): Check {
  return (value, at) => {
    const problems = checks.map((check) => check(value, at));
    return problems.includes(undefined) ? undefined : problems.join(', or ');
  };
}

function literal(...allowed: (string | number)[]): Check {
  return (value, at) =>
    allowed.includes(value as string | number)
      ? undefined
      : `${at} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, not ${describe(value)}`;
}

const nullable =
  (check: Check): Check =>
  (value, at) =>
    value === null ? undefined : check(value, at);

function array(check: Check): Check {
  return (value, at) => {
    if (!Array.isArray(value)) return `${at} must be an array, not ${describe(value)}`;
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object with `required` fields and, when present, `optional` ones (only its own fields count). */
function object(required: Record<string, Check>, optional: Record<string, Check> = {}): Check {
  return (value, at) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return `${at} must be an object, not ${describe(value)}`;
    const fields = value as Record<string, unknown>;
    for (const [name, check] of Object.entries(required)) {
      if (!Object.hasOwn(fields, name) || fields[name] === undefined) return `${at}.${name} is missing`;
      const problem = check(fields[name], `${at}.${name}`);
      if (problem) return problem;
    }
    for (const [name, check] of Object.entries(optional)) {
      if (!Object.hasOwn(fields, name) || fields[name] === undefined) continue;
      const problem = check(fields[name], `${at}.${name}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

const progressToken = oneOf(integer, string);
const progress = { workDoneToken: progressToken, partialResultToken: progressToken };
const documentId = object({ uri: string });
const position = object({ line: uinteger, character: uinteger });
const range = object({ start: position, end: position });
const positionParams = (more: Record<string, Check> = {}, optional: Record<string, Check> = {}) =>
  object({ textDocument: documentId, position, ...more }, { ...progress, ...optional });
const documentParams = object({ textDocument: documentId }, progress);
const workspaceFolder = object({ uri: string, name: string });
const diagnostic = object(
  { range, message: string },
  { severity: integer, code: oneOf(integer, string), source: string, tags: array(integer) },
);
const contentChange = object({ text: string }, { range, rangeLength: uinteger });

const METHODS: Record<string, Check> = {
  initialize: object(
    // A process id the watchdog polls (process.kill(pid, 0)): anything else would end the server.
    { processId: nullable(wholeNumber(1, UINTEGER_MAX)), capabilities: object({}) },
    {
      rootUri: nullable(string),
      rootPath: nullable(string),
      workspaceFolders: nullable(array(workspaceFolder)),
      initializationOptions: any,
      trace: literal('off', 'messages', 'verbose', 'compact'),
      clientInfo: object({ name: string }, { version: string }),
      locale: string,
      workDoneToken: progressToken,
    },
  ),
  'textDocument/didOpen': object({
    textDocument: object({ uri: string, languageId: string, version: integer, text: string }),
  }),
  'textDocument/didChange': object({
    textDocument: object({ uri: string, version: integer }),
    contentChanges: array(contentChange),
  }),
  'textDocument/didClose': object({ textDocument: documentId }),
  'textDocument/didSave': object({ textDocument: documentId }, { text: string }),
  'textDocument/willSave': object({ textDocument: documentId, reason: integer }),
  'textDocument/willSaveWaitUntil': object({ textDocument: documentId, reason: integer }),
  'workspace/didChangeWatchedFiles': object({
    changes: array(object({ uri: string, type: literal(1, 2, 3) })),
  }),
  'workspace/didChangeWorkspaceFolders': object({
    event: object({ added: array(workspaceFolder), removed: array(workspaceFolder) }),
  }),
  '$/cancelRequest': object({ id: oneOf(integer, string) }),
  '$/setTrace': object({ value: literal('off', 'messages', 'verbose') }),
  '$/progress': object({ token: progressToken, value: any }),
  'window/workDoneProgress/cancel': object({ token: progressToken }),
  'textDocument/completion': positionParams(
    {},
    { context: object({ triggerKind: integer }, { triggerCharacter: string }) },
  ),
  'textDocument/hover': positionParams(),
  'textDocument/definition': positionParams(),
  'textDocument/references': positionParams({ context: object({ includeDeclaration: boolean }) }),
  'textDocument/documentHighlight': positionParams(),
  'textDocument/prepareRename': positionParams(),
  'textDocument/rename': positionParams({ newName: string }),
  'textDocument/documentSymbol': documentParams,
  'textDocument/semanticTokens/full': documentParams,
  'textDocument/foldingRange': documentParams,
  'textDocument/formatting': object(
    { textDocument: documentId, options: object({ tabSize: uinteger, insertSpaces: boolean }) },
    progress,
  ),
  'textDocument/rangeFormatting': object(
    { textDocument: documentId, range, options: object({ tabSize: uinteger, insertSpaces: boolean }) },
    progress,
  ),
  'textDocument/codeAction': object(
    {
      textDocument: documentId,
      range,
      context: object({ diagnostics: array(diagnostic) }, { only: array(string), triggerKind: integer }),
    },
    progress,
  ),
  'textDocument/diagnostic': object(
    { textDocument: documentId },
    { identifier: string, previousResultId: string, ...progress },
  ),
  'workspace/diagnostic': object(
    { previousResultIds: array(object({ uri: string, value: string })) },
    { identifier: string, ...progress },
  ),
  // The server's own (custom-requests.ts).
  'kairoku-playbook/graph': object({ textDocument: documentId }),
  'kairoku-playbook/playbookFiles': object({ uris: array(string) }),
};

/** Why `params` do not fit `method`, or undefined (also for a method this table does not know). */
export function checkParams(method: string, params: unknown): string | undefined {
  const check = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
  return check?.(params, 'params');
}
