import type { IrRole } from '@kairoku-playbook/compiler';

/**
 * The tool policy (SPEC §3.4, RF-017): the policy is data (`IrRole.tools`, already narrowed by the
 * compiler), and this one function applies it. Pure: no I/O, no clock; the same role, call and
 * context always give the same decision. Every denial is recorded in the run's history with
 * `recordDenial` (`./denial.ts`). The platform's path rules come in (`toolPolicyFor(path)`: Node's
 * `node:path` in the runtime), as POSIX and Windows paths resolve differently and this package imports
 * no Node built-in.
 */

export type ToolName = 'read' | 'edit' | 'write' | 'run' | 'mcp' | 'network';

export interface ToolCall {
  tool: ToolName;
  /** read, edit, write: the file, relative to the worktree or absolute */
  path?: string;
  /** run: the whole command line */
  command?: string;
  /** mcp: the server's name */
  server?: string;
}

export interface PolicyContext {
  /** the step's worktree (absolute); file tools are confined to it */
  worktree: string;
}

/** What the policy needs of `node:path`: Node's module (or its `posix` and `win32`) is one. */
export interface PathRules {
  isAbsolute(path: string): boolean;
  resolve(...paths: string[]): string;
  relative(from: string, to: string): string;
}

export type Decision = { decision: 'allow' } | { decision: 'deny'; reason: string };

const ALLOW: Decision = Object.freeze({ decision: 'allow' }) as Decision;

/**
 * Shell operators that chain, substitute or redirect: a command containing one is a different
 * command from the one its first words name, so a role with a list of command patterns may not run
 * it (only `run: true` may). Besides the SPEC's `&&`, `||`, `;`, `|`, backticks and `$(`, this also
 * refuses a lone `&` (background, then anything), newlines (a second command), redirections (`>`,
 * `<`: a read-only reviewer must not write files through `npm test > x`) and `${`.
 */
const OPERATORS: readonly { text: string; name: string }[] = [
  { text: '&&', name: '&&' },
  { text: '||', name: '||' },
  { text: ';', name: ';' },
  { text: '|', name: '|' },
  { text: '`', name: 'backticks' },
  { text: '$(', name: '$(' },
  { text: '${', name: '${' },
  { text: '&', name: '&' },
  { text: '\n', name: 'a newline' },
  { text: '\r', name: 'a carriage return' },
  { text: '>', name: '>' },
  { text: '<', name: '<' },
];

/** Decides one tool call of an agent with `role` (SPEC §3.4): allow, or deny with a reason. */
export type DecideToolCall = (role: IrRole, call: ToolCall, context: PolicyContext) => Decision;

/**
 * The tool policy under a platform's path rules (`node:path`, or `path.posix` in a test), which confine
 * file tools to the step's worktree: the runtime's `decideToolCall` is `toolPolicyFor(path)`.
 */
export function toolPolicyFor(path: PathRules): DecideToolCall {
  return (role, call, context) => decide(role, call, context, path);
}

function decide(role: IrRole, call: ToolCall, context: PolicyContext, rules: PathRules): Decision {
  const who = `role "${role.name}"`;
  switch (call.tool) {
    case 'read':
    case 'edit':
    case 'write':
      return decideFile(role, call.tool, call.path, context, rules, who);
    case 'run':
      return decideRun(role, call.command, who);
    case 'mcp':
      return decideMcp(role, call.server, who);
    case 'network':
      return role.tools.network ? ALLOW : deny(`${who} may not use the network`);
    default:
      return deny(
        `unknown tool ${JSON.stringify((call as { tool?: unknown }).tool)}; the tools are read, edit, write, run, mcp and network`,
      );
  }
}

function deny(reason: string): Decision {
  return { decision: 'deny', reason };
}

function decideFile(
  role: IrRole,
  tool: 'read' | 'edit' | 'write',
  path: string | undefined,
  context: PolicyContext,
  rules: PathRules,
  who: string,
): Decision {
  if (!role.tools[tool]) return deny(`${who} may not ${tool} files${allowedFileTools(role)}`);
  if (typeof path !== 'string' || path === '') return deny(`${tool} needs a path`);
  if (path.includes('\0'))
    return deny(`${tool} of ${JSON.stringify(path)}: a path cannot contain a NUL byte`);
  if (typeof context.worktree !== 'string' || !rules.isAbsolute(context.worktree))
    return deny(`${tool} of ${JSON.stringify(path)}: the step has no worktree to confine it to`);
  const root = rules.resolve(context.worktree);
  const target = rules.resolve(root, path);
  const inside = rules.relative(root, target);
  if (inside === '..' || inside.startsWith('../') || inside.startsWith('..\\') || rules.isAbsolute(inside))
    return deny(
      `${tool} of ${JSON.stringify(path)} is outside the worktree ${root} (it resolves to ${target})`,
    );
  return ALLOW;
}

function allowedFileTools(role: IrRole): string {
  const may = (['read', 'edit', 'write'] as const).filter((t) => role.tools[t]);
  return may.length ? ` (it may ${may.join(', ')})` : '';
}

function decideRun(role: IrRole, command: string | undefined, who: string): Decision {
  const policy = role.tools.run;
  if (policy === false || (Array.isArray(policy) && policy.length === 0))
    return deny(`${who} may not run commands`);
  if (typeof command !== 'string' || command.trim() === '') return deny('run needs a command');
  if (policy === true) return ALLOW;
  const operator = OPERATORS.find((o) => command.includes(o.text));
  const allowed = `allowed: ${policy.map((p) => JSON.stringify(p)).join(', ')}`;
  if (operator)
    return deny(
      `${who} may run only whole commands matching its patterns, and ${JSON.stringify(command)} contains the shell operator ${operator.name} (${allowed})`,
    );
  const trimmed = command.trim();
  if (policy.some((pattern) => matchesPattern(pattern, trimmed))) return ALLOW;
  return deny(`${who} may not run ${JSON.stringify(command)}: it matches none of its commands (${allowed})`);
}

/** `*` matches any run of characters (also none); the pattern must match the whole command. */
export function matchesPattern(pattern: string, command: string): boolean {
  const parts = pattern.trim().split('*');
  if (parts.length === 1) return command === parts[0];
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (command.length < first.length + last.length) return false;
  if (!command.startsWith(first) || !command.endsWith(last)) return false;
  let at = first.length;
  const end = command.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = command.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

function decideMcp(role: IrRole, server: string | undefined, who: string): Decision {
  const policy = role.tools.mcp;
  if (policy === false || (Array.isArray(policy) && policy.length === 0))
    return deny(`${who} may not use MCP servers`);
  if (typeof server !== 'string' || server === '') return deny('mcp needs a server name');
  if (policy === true || policy.includes(server)) return ALLOW;
  return deny(
    `${who} may not use the MCP server ${JSON.stringify(server)} (allowed: ${policy.map((s) => JSON.stringify(s)).join(', ')})`,
  );
}
