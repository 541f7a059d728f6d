/**
 * `@kairoku-playbook/runtime`: the playbook interpreter (SPEC §6). A pure transition function over run
 * state, the run store, the `sim` backend and the driver that feeds one to the other.
 */
export const RUNTIME_VERSION = 1;

export { advance } from './core/transition.js';
export { dueTimeouts } from './core/timeouts.js';
export type { TransitionOptions, TransitionResult } from './core/transition.js';
export { createRun } from './core/create-run.js';
export type { NewRun } from './core/create-run.js';
export type { GateDecision, RunEvent, RunEventType } from './core/events.js';
export type { Effect, EffectType, OpenGate } from './core/effects.js';
export { REMINDER } from './core/effects.js';
export type { CarriedEffect } from './core/effects.js';
export { AFTER_PREFIX, MASK, STATE_VERSION, isEnded } from './core/state.js';
export type {
  Attempt,
  HistoryEntry,
  RunStartOptions,
  RunState,
  RunStatus,
  StepRun,
  StepStatus,
  WakeUp,
} from './core/state.js';
export { emptyVec, vecFromArray, vecGet, vecPush, vecSet, vecSlice, vecToArray } from './core/pvec.js';
export type { PVec } from './core/pvec.js';
export { coerceInput, prepareInputs, splitSecrets } from './core/inputs.js';
export { forTerminal } from './core/terminal-text.js';
export { SecretMasker, fingerprintSecrets, sameSecret, secretPieces } from './core/secret-mask.js';
export type { SecretFingerprint } from './core/state.js';
export { MASK_KEY_FILE, loadMaskKey } from './host/mask-key.js';
export { STEP_TOKEN_VARIABLE } from './mcp/token.js';
export { evaluate, render, renderText, toText, Lookup } from './expr/evaluate.js';
export type { Scope } from './expr/evaluate.js';
export { stepRun, allSteps, summarize } from './core/view.js';
export type { RunSummary, StepSummary, AttemptSummary } from './core/view.js';
export { RunStore, defaultHome, serializeRun, deserializeRun } from './store/run-store.js';
export type { OperatorRequest } from './store/run-store.js';
export { FileWriteError, writeFileAtomic } from './store/atomic-write.js';
export { StoreBusyError } from './store/lock.js';
export type { Backend, BackendContext, BackendEffect } from './driver/backend.js';
export { SimBackend } from './backends/sim.js';
export { generatedOutputs, representative, simString } from './core/representative.js';
export type { SimOptions } from './backends/sim.js';
export { readScenario, emptyScenario, parseYaml } from './backends/scenario.js';
export type { Scenario, ScriptedDecision, ScriptedReport } from './backends/scenario.js';
export { Driver } from './driver/driver.js';
export { LiveRun } from './host/live-run.js';
export { RunHost, HOST_MANAGER, newWorktreeBranch } from './host/run-host.js';
export type {
  Changed,
  CreateOptions,
  DriveOptions,
  HostRefusal,
  HostResult,
  ManagedChange,
  Operation,
  RoomHelp,
  RunHostOptions,
  StartOptions,
} from './host/run-host.js';
export type { GateAsker, LiveRunOptions } from './host/live-run.js';
export type { DriverOptions, Refusal } from './driver/driver.js';
export { continueSim, runSim } from './sim-run.js';
export type { SimContinueOptions, SimContinueResult, SimRunOptions, SimRunResult } from './sim-run.js';
export { compareExpectation, readExpectation } from './testing/expectation.js';
export type { Expectation, StepExpectation } from './testing/expectation.js';
export { runPlaybookTest } from './testing/playbook-test.js';
export type { PlaybookTestResult } from './testing/playbook-test.js';
export { TOOL_DENIED, decideToolCall, maskSecrets, matchesPattern, recordDenial } from './policy/index.js';
export type { Decision, Denial, PolicyContext, ToolCall, ToolName } from './policy/index.js';
export {
  DEFAULT_MAX_STATES,
  Model,
  applyExploreSuppressions,
  describePath,
  explore,
  exploreDiagnostics,
  keyAt,
  pathLines,
  sayMove,
} from './explore/index.js';
export type {
  Applied,
  Exploration,
  ExploreOptions,
  Move,
  PathEvent,
  PlaybookSource,
  StuckRun,
  UnitBound,
} from './explore/index.js';
export { describeRoomConflict, findRoomConflict } from './store/room.js';
export type { RoomConflict } from './store/room.js';
export * from './exec/index.js';
export { findServe, serveInfoPath } from './serve/discovery.js';
export type { ServeInfo } from './serve/discovery.js';
