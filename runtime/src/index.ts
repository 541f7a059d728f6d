/**
 * `@kairoku-playbook/runtime`: the playbook interpreter (SPEC §6). The run store, the `sim` backend and
 * the driver that feeds events to the pure transition function of `@kairoku-playbook/machine`, whose API
 * this entry re-exports as it did before the rules moved there.
 */
export const RUNTIME_VERSION = 1;

export { advance } from '@kairoku-playbook/machine';
export { dueTimeouts } from '@kairoku-playbook/machine';
export type { TransitionOptions, TransitionResult } from '@kairoku-playbook/machine';
export { createRun } from '@kairoku-playbook/machine';
export type { NewRun } from '@kairoku-playbook/machine';
export type { GateDecision, RunEvent, RunEventType } from '@kairoku-playbook/machine';
export type { Effect, EffectType, OpenGate } from '@kairoku-playbook/machine';
export { REMINDER } from '@kairoku-playbook/machine';
export type { CarriedEffect } from '@kairoku-playbook/machine';
export { AFTER_PREFIX, MASK, STATE_VERSION, isEnded } from '@kairoku-playbook/machine';
export type {
  Attempt,
  HistoryEntry,
  RunStartOptions,
  RunState,
  RunStatus,
  StepRun,
  StepStatus,
  WakeUp,
} from '@kairoku-playbook/machine';
export {
  emptyVec,
  vecFromArray,
  vecGet,
  vecPush,
  vecSet,
  vecSlice,
  vecToArray,
} from '@kairoku-playbook/machine';
export type { PVec } from '@kairoku-playbook/machine';
export { coerceInput, prepareInputs, splitSecrets } from '@kairoku-playbook/machine';
export { forTerminal } from '@kairoku-playbook/machine';
export { SecretMasker, fingerprintSecrets, sameSecret, secretPieces } from '@kairoku-playbook/machine';
export type { SecretFingerprint } from '@kairoku-playbook/machine';
export { MASK_KEY_FILE, loadMaskKey } from './host/mask-key.js';
export { STEP_TOKEN_VARIABLE } from './store/step-token.js';
export { evaluate, render, renderText, toText, Lookup } from '@kairoku-playbook/machine';
export type { Scope } from '@kairoku-playbook/machine';
export { stepRun, allSteps, summarize } from '@kairoku-playbook/machine';
export type { RunSummary, StepSummary, AttemptSummary } from '@kairoku-playbook/machine';
export { RunStore, defaultHome, serializeRun, deserializeRun } from './store/run-store.js';
export { RunIndex, fileStamp, indexEntry } from './store/run-index.js';
export type { RunIndexEntry, RunIndexProblem } from './store/run-index.js';
export type { OperatorRequest } from './store/run-store.js';
export { FileWriteError, writeFileAtomic } from './store/atomic-write.js';
export { StoreBusyError, lockStore } from './store/lock.js';
export type { Backend, BackendContext, BackendEffect } from './driver/backend.js';
export { SimBackend } from './backends/sim.js';
export { generatedOutputs, simString } from '@kairoku-playbook/machine';
export type { SimOptions } from './backends/sim.js';
export { readScenario, emptyScenario, parseYaml, scenarioShapeErrors } from './backends/scenario.js';
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
export { continueSim, runSim } from './testing/sim-run.js';
export type {
  SimContinueOptions,
  SimContinueResult,
  SimRunOptions,
  SimRunResult,
} from './testing/sim-run.js';
export { compareExpectation, readExpectation } from './testing/expectation.js';
export type { Expectation, StepExpectation } from './testing/expectation.js';
export { runPlaybookTest } from './testing/playbook-test.js';
export type { PlaybookTestResult } from './testing/playbook-test.js';
export { TOOL_DENIED, maskSecrets, matchesPattern, recordDenial } from '@kairoku-playbook/machine';
export type { Decision, Denial, PolicyContext, ToolCall, ToolName } from '@kairoku-playbook/machine';
export { decideToolCall } from './tool-policy.js';
export {
  DEFAULT_MAX_STATES,
  Model,
  applyExploreSuppressions,
  budgetRanOut,
  describePath,
  explore,
  exploreDiagnostics,
  explorePlaybook,
  isExplored,
  keyAt,
  pathLines,
  sayBounds,
  sayDuration,
  sayMove,
  sayUnitBound,
  staticBounds,
  withBounds,
} from '@kairoku-playbook/machine';
export type {
  Applied,
  Exploration,
  ExploreOptions,
  ExploredPlaybook,
  Move,
  PathEvent,
  PlaybookSource,
  RunBounds,
  RunBudget,
  StuckRun,
  UnitBound,
} from '@kairoku-playbook/machine';
export { describeRoomConflict, findRoomConflict } from './store/room.js';
export type { RoomConflict } from './store/room.js';
export * from './exec/index.js';
export { findServe, serveInfoPath } from './store/serve-discovery.js';
export type { ServeInfo } from './store/serve-discovery.js';
