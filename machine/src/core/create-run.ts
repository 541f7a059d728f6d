import type { Ir } from '@kairoku-playbook/compiler';
import { splitSecrets } from './inputs.js';
import { emptyVec, vecFromArray } from './pvec.js';
import { fingerprintSecrets } from './secret-mask.js';
import { STATE_VERSION } from './state.js';
import type { RunState, StepRun } from './state.js';

export interface NewRun {
  id: string;
  /** checked inputs with defaults applied (see `prepareInputs`); secret ones are masked here */
  inputs: Record<string, unknown>;
  now: number;
  backend?: string;
  branch?: string;
  /**
   * the key secret values are fingerprinted under (`loadMaskKey`), so that processes without the
   * values (a restart, a step agent's server) still mask them; without it, only the values mask
   */
  maskKey?: Uint8Array;
}

/** A new run, not started yet: send it `{ type: 'start' }`. Pure: the id and the time come in. */
export function createRun(ir: Ir, run: NewRun): RunState {
  const at = new Date(run.now).toISOString();
  const { visible, secrets } = splitSecrets(ir, run.inputs);
  const prints = run.maskKey ? fingerprintSecrets(secrets, run.maskKey, run.id) : {};
  return {
    version: STATE_VERSION,
    id: run.id,
    playbook: ir.id,
    title: ir.title,
    backend: run.backend ?? 'sim',
    branch: run.branch ?? '',
    ir,
    inputs: visible,
    secretInputs: ir.inputs.filter((i) => i.secret).map((i) => i.name),
    ...(Object.keys(prints).length ? { secretFingerprints: prints } : {}),
    status: 'running',
    reason: null,
    createdAt: at,
    startedAt: null,
    endedAt: null,
    updatedAt: at,
    deadline: null,
    steps: vecFromArray(ir.steps.map((s) => newStepRun(s.name, s.needs.length))),
    after: ir.after.map((a) => newStepRun(a.name, 0)),
    settled: 0,
    loops: {},
    deferred: [],
    wakeups: [],
    history: emptyVec(),
    outputs: null,
  };
}

export function newStepRun(name: string, unsettledNeeds: number): StepRun {
  return {
    name,
    status: 'pending',
    attempts: [],
    unsettledNeeds,
    retriesUsed: 0,
    loop: null,
    gate: null,
    outcome: null,
    outputs: null,
    summary: null,
    reason: null,
  };
}
