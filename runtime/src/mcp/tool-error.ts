/**
 * A refusal of the manager protocol: what was asked cannot be done, and the message says what to do
 * instead. Tools return it to the caller as an MCP tool error (`isError: true`).
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';

  /**
   * `code`: the refusal's stable code when the transition function refused (`TransitionRefusal`),
   * else a code of the protocol's own (`unknown-run`, `store-busy`, ...), or undefined.
   */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The core names events (`request-gate`); callers of the protocol know its tools (`request_gate`). */
export function inToolTerms(message: string): string {
  return message
    .replace(/\(gate-decided\)/g, '(in the panel, or with resume when the decision arrives by chat)')
    .replace(/\brequest-gate\b/g, 'request_gate')
    .replace(/\bstart-step\b/g, 'start_step')
    .replace(/\bcomplete-step\b/g, 'complete_step');
}
