/** A usage or I/O problem: printed as one line, exit code 2. A module of its own, for the light bundles. */
export class UsageError extends Error {}
