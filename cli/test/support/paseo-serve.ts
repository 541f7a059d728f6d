/** Moved to the test kit (test/kit/index.ts); this re-export goes when the CLI's tests import the kit. */
export { callServe, relayPlaybook, startPaseoServe } from '../../../test/kit/index.js';
export type { ServeProcess as Serving } from '../../../test/kit/index.js';
