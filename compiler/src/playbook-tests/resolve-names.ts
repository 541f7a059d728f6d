/**
 * The one set of rules for the names a scenario or a playbook test uses of its playbook: which step,
 * after-task, gate, outcome and choice each name is, or what is wrong with it, as a value. The
 * compiler's test-file checks (PB803–PB806, with ranges and fixes) and the runtime's scenario and
 * `expect:` readers (a `run --scenario`, an MCP call, `kairoku-playbook test`, with paths like
 * `steps.qa[0]`) both ask these rules and only word the answer; neither keeps rules of its own.
 *
 * A playbook here is what both the compiler's model and the IR have: steps and after-tasks with a
 * name, a kind and named outcomes (a gate's outcomes are its choices).
 */

export interface NamedUnit {
  name: string;
  /** undefined for a step whose kind the compiler could not tell (it has its own diagnostic) */
  kind?: 'agent' | 'check' | 'gate' | undefined;
  outcomes: readonly { name: string }[];
}

export interface TestPlaybook {
  steps: readonly NamedUnit[];
  after: readonly NamedUnit[];
}

/** A name a test uses: where it stands decides what it must name. */
export type NameUse =
  /** a step or after-task: scripted (`steps:`, `after:`: reports) or only named (`expect`, a loop counter) */
  | { kind: 'step'; name: string; after: boolean; scripted: boolean }
  /** a gate scripted under `gates:` */
  | { kind: 'gate'; name: string }
  /** an outcome of a step or after-task (for a gate, one of its choices) */
  | { kind: 'outcome'; name: string; step: string; after: boolean }
  /** a choice of a gate, in a scripted decision */
  | { kind: 'choice'; name: string; gate: string };

/** What is wrong with a name; `declared` lists the names that would fit there (for a did-you-mean). */
export type NameProblem =
  /** PB803: no such step or after-task */
  | { problem: 'unknown-step'; after: boolean; declared: string[] }
  /** PB804: a gate scripted under `steps:` (a gate is decided, not reported) */
  | { problem: 'gate-under-steps' }
  /** PB804: a step that is not a gate scripted under `gates:` */
  | { problem: 'not-a-gate' }
  /** PB804: no such gate (nor step) */
  | { problem: 'unknown-gate'; declared: string[] }
  /** PB805: the step, after-task or gate has no such outcome (choice) */
  | { problem: 'unknown-outcome'; owner: NamedUnit; after: boolean; declared: string[] }
  /** PB806: the gate has no such choice */
  | { problem: 'unknown-choice'; gate: NamedUnit; declared: string[] };

function unitNamed(playbook: TestPlaybook, name: string, after: boolean): NamedUnit | undefined {
  return (after ? playbook.after : playbook.steps).find((s) => s.name === name);
}

/**
 * What is wrong with one name a test uses, or undefined when it names what its place asks for. A name
 * under a step that is wrong itself (an outcome of an unknown step, a choice of what is no gate) is not
 * wrong again: the step's problem is the one to fix.
 */
export function resolveName(use: NameUse, playbook: TestPlaybook): NameProblem | undefined {
  switch (use.kind) {
    case 'step': {
      const unit = unitNamed(playbook, use.name, use.after);
      if (!unit) {
        // (a scripted step is reported: a gate is no name to suggest there)
        const fits = use.after
          ? playbook.after
          : use.scripted
            ? playbook.steps.filter((s) => s.kind !== 'gate')
            : playbook.steps;
        return { problem: 'unknown-step', after: use.after, declared: fits.map((s) => s.name) };
      }
      return use.scripted && !use.after && unit.kind === 'gate' ? { problem: 'gate-under-steps' } : undefined;
    }
    case 'gate': {
      const unit = unitNamed(playbook, use.name, false);
      if (unit?.kind === 'gate') return undefined;
      if (unit) return { problem: 'not-a-gate' };
      return { problem: 'unknown-gate', declared: gatesOf(playbook) };
    }
    case 'outcome': {
      const owner = unitNamed(playbook, use.step, use.after);
      if (!owner) return undefined;
      const declared = owner.outcomes.map((o) => o.name);
      return declared.includes(use.name)
        ? undefined
        : { problem: 'unknown-outcome', owner, after: use.after, declared };
    }
    case 'choice': {
      const gate = unitNamed(playbook, use.gate, false);
      if (gate?.kind !== 'gate') return undefined;
      const declared = gate.outcomes.map((o) => o.name);
      return declared.includes(use.name) ? undefined : { problem: 'unknown-choice', gate, declared };
    }
  }
}

/** The gates of a playbook, by name. */
export function gatesOf(playbook: TestPlaybook): string[] {
  return playbook.steps.filter((s) => s.kind === 'gate').map((s) => s.name);
}

/**
 * The shape problems that are not echoes of a misplaced name (one mistake, one diagnostic): a gate
 * scripted under `steps:` (its `{ choice }` is no report) or a step under `gates:` (its report has no
 * `choice`) is said once, by the name rules (PB804); what is wrong inside its entries only follows from it.
 */
export function withoutMisplacedEchoes<P extends { path: readonly string[]; key?: string }>(
  problems: readonly P[],
  playbook: TestPlaybook,
): P[] {
  return problems.filter((problem) => {
    const [section, name] = problem.path;
    // inside the entry: below it (a list's items), or a key of it (one mapping for a list of one)
    const inside = problem.path.length > 2 || (problem.path.length === 2 && problem.key !== undefined);
    if (name === undefined || !inside) return true;
    if (section === 'steps')
      return (
        resolveName({ kind: 'step', name, after: false, scripted: true }, playbook)?.problem !==
        'gate-under-steps'
      );
    if (section === 'gates') return resolveName({ kind: 'gate', name }, playbook)?.problem !== 'not-a-gate';
    return true;
  });
}
