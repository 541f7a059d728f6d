import type { Ir } from '@kairoku-playbook/compiler';
import type { CurrentAgentAnswer, StartOptionsOffered } from '@kairoku-playbook/protocol';
import type { RunState } from '@kairoku-playbook/machine';
import type { Backend, BackendContext } from '../driver/backend.js';
import type { HostResult, Recovered, RunHost, StartOptions } from './run-host.js';

/** What the start form offers beyond the inputs: the API's own type. */
export type OfferedStartOptions = StartOptionsOffered;

/**
 * A backend connected to host a workspace's runs (`serve --backend NAME`): what `RunHost` is built
 * with, and the start options the backend registers — what it offers, why it does not offer one here,
 * and its own kinds of start (Paseo's `newAgent`: a run with a manager agent of its own). Each
 * backend builds its own (`backends/paseo/serve-backend.ts`, `backends/kairoku/…`); the CLI parses
 * the flags and hands them over.
 */
export interface HostingBackend {
  backendFor: (state: RunState) => Backend;
  /** recovery: whether a run's manager still exists (default: presumed alive) */
  managerExists?: (manager: string, runId: string) => boolean;
  /** recovery: watch the agents of a run taken up again (`RunHostOptions.adopt`) */
  adopt?: (state: RunState, backend: Backend, context: BackendContext) => void;
  /** once the host's recovery has taken up the runs, before serve listens */
  recovered?: () => void;
  /**
   * then: the backend watches what the workspace's runs depend on outside the host (Paseo: the manager
   * agents of managed runs, and every run's agents), changing runs through the host; `close` stops it
   */
  watch?: (host: RunHost, recovered: Recovered) => void;
  /** what the start form offers (default: nothing beyond the inputs) */
  startOptions?: OfferedStartOptions;
  /** a start with `newAgent`: the run gets a manager agent of its own (offered by `startOptions`) */
  startWithNewAgent?: (
    host: RunHost,
    ir: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions,
  ) => Promise<HostResult<{ state: RunState; warnings: string[] }>>;
  /** the workspace's current agent, which a start with `currentAgent` makes the manager */
  currentAgent?: () => Promise<CurrentAgentAnswer>;
  /** a start with `currentAgent`: that agent (the one `currentAgent` named) becomes the run's manager */
  startWithCurrentAgent?: (
    host: RunHost,
    ir: Ir,
    inputs: Record<string, unknown>,
    options: StartOptions,
    agentId: string,
  ) => Promise<HostResult<{ state: RunState; warnings: string[] }>>;
  /** why a start option is not offered in this configuration (said in its refusal) */
  unofferedWhy?: Partial<Record<'newAgent' | 'worktree', string>>;
  /** lines for standard output once serve listens (where runners dial in, the fingerprint) */
  banner?: string[];
  /** lets go of what setup opened (connections kept for the whole serve) */
  close?: () => Promise<void>;
}

/** A backend that cannot host runs as configured: the message says what to change (a usage error). */
export class HostingRefused extends Error {}
