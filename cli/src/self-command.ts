/**
 * How to start this CLI again (for a step agent's MCP server): Node and the script it runs, or, in the
 * single executable, the executable alone (there argv[1] is argv[0] as typed, not a script).
 */
export function selfCommand(): string[] {
  if (isSingleExecutable()) return [process.execPath];
  return [process.execPath, ...(process.argv[1] ? [process.argv[1]] : [])];
}

/** Whether this process is the CLI's single executable (Node's SEA). */
export function isSingleExecutable(): boolean {
  try {
    // The bundle is CommonJS, so `require` is there (run from source, nothing is a single executable);
    // node:sea exists from Node 20.12, and there are no single executables of this CLI before it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return typeof require === 'function' && (require('node:sea') as { isSea(): boolean }).isSea();
  } catch {
    return false;
  }
}
