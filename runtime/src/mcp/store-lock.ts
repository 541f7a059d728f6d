import { StoreBusyError, lockStore } from '../store/lock.js';
import { ToolError } from './tool-error.js';

/**
 * The run store's lock (`lockStore`) around a tool call's change: a store that stays busy is a
 * refusal the caller can act on (it says to try again), not a failure of the server.
 */
export function withStoreLock<T>(
  folder: string,
  action: () => T,
  options: { waitMs?: number; staleMs?: number } = {},
): T {
  return busyAsRefusal(() => lockStore(folder, action, options));
}

/**
 * `action` (a change that takes the store's lock itself: `RunHost.change`, `startManaged`), with a
 * store that stayed busy turned into the refusal `withStoreLock` gives.
 */
export function busyAsRefusal<T>(action: () => T): T {
  try {
    return action();
  } catch (error) {
    throw error instanceof StoreBusyError ? new ToolError(error.message, 'store-busy') : error;
  }
}
