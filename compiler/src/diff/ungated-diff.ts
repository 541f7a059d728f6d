/**
 * Approval dominance in a diff (PB700): the steps ungated in HEAD that were not in BASE (widened), and
 * the other way round (narrowed), matched across renames.
 */
import type { Ir } from '../ir/ir.js';
import type { Matching } from './match.js';
import { renamed } from './policy-change.js';
import type { PolicyChange, UngatedStep } from './policy-change.js';

export function ungatedChanges(
  base: Ir,
  head: Ir,
  matching: Matching,
  analyse: (ir: Ir) => readonly UngatedStep[],
  sides: { added: boolean; removed: boolean },
): PolicyChange[] {
  const out: PolicyChange[] = [];
  const key = (s: UngatedStep) => `${s.after ? 'after' : 'step'}\0${s.step}`;
  const baseUngated = sides.added ? [] : analyse(base);
  const headUngated = sides.removed ? [] : analyse(head);
  const baseIndex = new Map(base.steps.map((s) => [s.name, s.index]));
  const baseAfter = new Map(base.after.map((s, i) => [s.name, i]));
  const headName = (s: UngatedStep) => {
    if (s.after) {
      const i = baseAfter.get(s.step);
      const h = i === undefined ? undefined : matching.after.get(i);
      return h === undefined ? undefined : head.after[h]!.name;
    }
    const i = baseIndex.get(s.step);
    const h = i === undefined ? undefined : matching.steps.get(i);
    return h === undefined ? undefined : head.steps[h]!.name;
  };
  const was = new Set(baseUngated.map((s) => `${s.after ? 'after' : 'step'}\0${headName(s) ?? ''}`));
  const now = new Set(headUngated.map(key));
  for (const s of headUngated) {
    if (was.has(key(s))) continue;
    out.push({
      kind: 'ungated-path',
      direction: 'widened',
      subject: { type: s.after ? 'after' : 'step', name: s.step },
      message: `${s.after ? 'after-task' : 'step'} ${s.step} can reach outside its worktree with no gate approved before it: ${s.path.join(' → ')}`,
      steps: s.path,
    });
  }
  for (const s of baseUngated) {
    const name = headName(s);
    if (name === undefined || now.has(`${s.after ? 'after' : 'step'}\0${name}`)) continue;
    out.push({
      kind: 'ungated-path',
      direction: 'narrowed',
      subject: { type: s.after ? 'after' : 'step', name, ...renamed(s.step, name) },
      message: `${s.after ? 'after-task' : 'step'} ${name} no longer reaches outside its worktree ungated`,
    });
  }
  return out;
}
