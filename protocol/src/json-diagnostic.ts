/**
 * A diagnostic exactly as `kairoku-playbook check --format json` prints one (SPEC §7): lines and columns
 * 1-based, columns in UTF-16 code units, the end exclusive. The compiler makes them (its `JsonDiagnostic`
 * narrows `code` to the codes of SPEC §4); serve's playbook cards, the MCP tools and the playground carry
 * them unchanged.
 */
export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  related?: {
    file: string;
    line: number;
    column: number;
    endLine: number;
    endColumn: number;
    message: string;
  }[];
}
