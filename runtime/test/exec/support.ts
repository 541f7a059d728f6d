/** Moved to the test kit (test/kit/index.ts); this re-export goes when the runtime's tests import the kit. */
import { alive, waitFor } from '../../../test/kit/index.js';
export const gone = (pid: number): boolean => !alive(pid);
export const until = async (condition: () => boolean, what: string): Promise<void> => {
  await waitFor(what, condition, 15_000);
};
