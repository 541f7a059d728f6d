/** Moved to the test kit (test/kit/index.ts); this re-export goes when the runtime's tests import the kit. */
export {
  BROKEN,
  openEvents,
  serveOnSim as served,
  serveWorkspace as workspace,
} from '../../../test/kit/index.js';
export type { Answer, Served, SseEvent } from '../../../test/kit/index.js';
