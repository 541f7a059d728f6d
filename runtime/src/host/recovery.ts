import { advance, hasWorkGoing } from '@kairoku-playbook/machine';
import type { RunState } from '@kairoku-playbook/machine';
import { loseGoneAgents } from '../store/recover.js';
import type { HostedRuns } from './hosted-runs.js';
import type { RunBook } from './run-book.js';

export interface Recovered {
  adopted: string[];
  failed: string[];
  /** active runs of another backend: left for a host of theirs (their agents may be at work) */
  otherBackends: string[];
  problems: { file: string; message: string }[];
}

/**
 * On start (seed 000): runs of this workspace left active by a host that died (or by a `run` process
 * that did) are taken up again; runs a manager agent of their own manages are left to it, unless that
 * manager is gone.
 * Running steps whose agents are gone are lost (the lost-agent rule: a retry within `retries`, else
 * the step is lost); open gates stay open and are shown again; a run whose manager is gone fails.
 * What could not be read is returned, not fatal.
 */
export function recoverWorkspace(book: RunBook, hosted: HostedRuns): Recovered {
  const found: Recovered = { adopted: [], failed: [], otherBackends: [], problems: [] };
  found.problems = book.locked(() => {
    const all = book.store.loadActive();
    for (const stored of all.runs) {
      if (stored.workspace !== book.workspace || !hasWorkGoing(stored)) continue;
      recoverOne(book, hosted, stored, found);
    }
    return all.problems;
  });
  // A run taken up again goes on from where it stood (ready steps start, due timeouts fire).
  for (const id of found.adopted) hosted.goOn(id);
  return found;
}

function recoverOne(book: RunBook, hosted: HostedRuns, stored: RunState, found: Recovered): void {
  const options = book.options;
  const manager = stored.manager;
  if (manager && manager !== book.manager && !(options.managerExists?.(manager, stored.id) ?? true)) {
    // Seed 000: on start, a run whose manager no longer exists is failed.
    const reason = `its manager (${manager}) no longer exists`;
    const result = advance(stored, { type: 'manager-lost', reason }, book.clock());
    if (result.refusal === undefined) {
      book.save(result.state);
      found.failed.push(stored.id);
    }
    return;
  }
  // A run another live process drives (`run --backend paseo`), or that a manager agent of its own
  // manages (the MCP server's), is theirs: the host neither drives it with autopilot nor writes it.
  if (book.store.owner(stored.id) !== undefined) return;
  if (manager && manager !== book.manager) return;
  // A sim host does not take up a paseo run (its agents would be sim agents from then on), nor
  // the reverse: the run waits, whole, for a host of its backend.
  if (stored.backend !== options.backend) {
    found.otherBackends.push(stored.id);
    return;
  }
  const backend = hosted.backendOf(stored);
  const exists =
    options.agentExists ?? ((_state: RunState, agent: string | undefined) => backend.agentExists(agent));
  // A Kairoku dispatch a dead host left non-terminal is failed this way, never relaunched (RF-013).
  const { state } = loseGoneAgents(
    stored,
    (agent) => exists(stored, agent),
    book.clock(),
    stored.backend === 'kairoku'
      ? 'its dispatch was left non-terminal by a host that stopped: failed, never relaunched (RF-013)'
      : undefined,
  );
  if (state !== stored) book.save(state);
  if (!hasWorkGoing(state)) return;
  const context = hosted.adopt(state, backend);
  options.adopt?.(state, backend, context);
  found.adopted.push(state.id);
}

/**
 * Recovery for callers that drive runs themselves (`run`, the MCP server): the lost-agent rule on every
 * active run of `backend` whose running agents no longer exist, under the store's lock; changed runs
 * are saved (subscribers told). A run another live process has claimed is left to it. Returns every
 * run of the store as it is then, and the files that do not read.
 */
export function loseGoneRuns(
  book: RunBook,
  agentExists: (agent: string | undefined) => boolean,
  backend: string,
): { runs: RunState[]; problems: { file: string; message: string }[] } {
  return book.locked(() => {
    const { runs, problems } = book.store.loadActive();
    const now = book.clock();
    const after = runs.map((stored) => {
      if (stored.backend !== backend || book.store.owner(stored.id) !== undefined) return stored;
      const { state, lost } = loseGoneAgents(stored, agentExists, now);
      if (lost.length) book.save(state);
      return state;
    });
    return { runs: after, problems };
  });
}
