import type { FixedBase, RoleDecl } from '../model/model.js';
import { FIXED_ROLES } from '../model/model.js';

/** What each base of the fixed role table may do (RF-009, RF-017; SPEC §3.4). */
export interface BaseTools {
  read: boolean;
  edit: boolean;
  write: boolean;
  run: boolean;
  mcp: boolean;
  network: boolean;
}

export const BASE_POLICY: Record<FixedBase, BaseTools> = {
  implementer: { read: true, edit: true, write: true, run: true, mcp: false, network: false },
  reviewer: { read: true, edit: false, write: false, run: true, mcp: false, network: false },
  planner: { read: true, edit: false, write: false, run: false, mcp: true, network: false },
  researcher: { read: true, edit: false, write: false, run: false, mcp: true, network: false },
};

/** Bases whose steps must leave the worktree unchanged (checked with git after the step). */
export const READ_ONLY_BASES: readonly FixedBase[] = ['reviewer', 'planner', 'researcher'];

/** The fixed base a role's policy starts from: its `base`, or its own name for a fixed role; none when neither is one. */
export function baseOf(role: RoleDecl): FixedBase | undefined {
  const name = role.base?.name ?? role.name;
  return (FIXED_ROLES as readonly string[]).includes(name) ? (name as FixedBase) : undefined;
}
