/**
 * `@kairoku-playbook/protocol`: what the toolchain's parts say to each other, at the bottom of the
 * house (it imports nothing, not even Node): serve's HTTP API and its JSON Schemas, the language
 * server's graph answer, the JSON diagnostic, JSON-RPC ids.
 */
export type * from './serve-api.js';
export { ANSWER_SCHEMAS, REQUEST_SCHEMAS } from './generated/serve-schemas.js';
export type { AnswerKind, RequestKind } from './generated/serve-schemas.js';
export type { JsonDiagnostic } from './json-diagnostic.js';
export { GRAPH_REQUEST, LISTED_PROBLEMS, PLAYBOOK_FILES_REQUEST } from './graph.js';
export type * from './graph.js';
export { readRequestId } from './json-rpc.js';
export type { RequestId } from './json-rpc.js';
