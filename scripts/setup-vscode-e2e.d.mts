/** Types of setup-vscode-e2e.mjs, for the end-to-end test that imports its paths. */
export const NODE_PACKAGE: string;
export const CODE_SERVER_PACKAGE: string;
export const CACHE: string;
export const NODE_DIR: string;
/** Node 24's executable. */
export const NODE: string;
/** code-server's entry script, to run with NODE. */
export const CODE_SERVER: string;
export const CHROMIUM: string;
export function setup(options?: { log?: (line: string) => void }): void;
/** Why the end-to-end test cannot run yet (and which command fixes it), or undefined when it can. */
export function notReady(): string | undefined;
