export const LSP_VERSION = 1;
