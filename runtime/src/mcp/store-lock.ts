import { StoreBusyError } from '../store/lock.js';
import { ToolError } from './tool-error.js';

/**
 * `action` (a change that takes the run store's lock itself: `RunHost.change`, `startManaged`,
 * `loseGone`), with a store that stayed busy turned into a refusal the caller can act on (it says to
 * try again), not a failure of the server.
 */
export function busyAsRefusal<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw error instanceof StoreBusyError ? new ToolError(error.message, 'store-busy') : error;
  }
}
