/** What changes between two roles' tool policies, tool by tool, and which way each change goes. */
import type { IrRole } from '../ir/ir.js';
import type { Direction } from './policy-change.js';

type Tools = IrRole['tools'];
export const TOOLS = ['read', 'edit', 'write', 'network', 'run', 'mcp'] as const;
type Tool = (typeof TOOLS)[number];

/** Every base but `implementer` is read-only: its steps may not change the worktree. */
export function isReadOnly(base: IrRole['base']): boolean {
  return base !== 'implementer';
}

export function grants(value: boolean | string[]): boolean {
  return Array.isArray(value) ? value.length > 0 : value;
}

interface ToolChange {
  direction: Direction;
  message: string;
  before: boolean | string[];
  after: boolean | string[];
}

/** What changes between two tool policies, tool by tool: a grant widened and one narrowed are two changes. */
export function toolChanges(before: Tools, after: Tools): ToolChange[] {
  const changes: ToolChange[] = [];
  for (const tool of TOOLS) {
    const b = before[tool];
    const h = after[tool];
    const change = (direction: Direction, message: string) =>
      changes.push({ direction, message, before: b, after: h });
    const list = (values: string[]) => values.map((v) => JSON.stringify(v)).join(', ');
    const noun = tool === 'mcp' ? 'servers' : 'commands';
    if (Array.isArray(b) && Array.isArray(h)) {
      const added = h.filter((v) => !b.includes(v));
      const gone = b.filter((v) => !h.includes(v));
      if (added.length) change('widened', `may ${tool} ${list(added)} (${tool} ${noun} added)`);
      if (gone.length) change('narrowed', `may no longer ${tool} ${list(gone)}`);
    } else if (Array.isArray(b) || Array.isArray(h)) {
      if (h === true) change('widened', `may ${tool} any ${noun} (was only ${list(b as string[])})`);
      else if (h === false) change('narrowed', `may no longer ${tool} (was ${list(b as string[])})`);
      else if (b === true) change('narrowed', `may only ${tool} ${list(h as string[])} (was any)`);
      else change('widened', `may ${tool} ${list(h as string[])} (${tool} granted)`);
    } else if (b !== h) {
      change(
        h ? 'widened' : 'narrowed',
        h ? `may ${toolVerb(tool)} (${tool} granted)` : `may no longer ${toolVerb(tool)}`,
      );
    }
  }
  return changes;
}

function toolVerb(tool: Tool): string {
  switch (tool) {
    case 'network':
      return 'reach the network';
    case 'mcp':
      return 'use any MCP server';
    case 'run':
      return 'run any command';
    default:
      return tool;
  }
}
