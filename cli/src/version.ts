/** The toolchain's version, printed by --version and written into SARIF. */
export const VERSION = '0.1.0';
