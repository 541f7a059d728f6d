export const RUNTIME_VERSION = 1;
