import { shown } from '../diagnostic.js';

/**
 * Command patterns as SPEC §3.4 writes them: a command line in which `*` matches any run of characters
 * (the runtime's `matchesPattern`). Used by PB700 to ask whether a command a step may run can match a
 * gated pattern.
 */

/**
 * Whether some command matches both patterns (each `*` any run of characters, the rest literal). Exact:
 * a search over pairs of positions, O(|a|·|b|). A command is a pattern without `*`, so this also says
 * whether a command matches a pattern.
 */
export function patternsOverlap(a: string, b: string): boolean {
  const p = a.trim();
  const q = b.trim();
  const width = q.length + 1;
  const seen = new Uint8Array((p.length + 1) * width);
  const stack: number[] = [0];
  seen[0] = 1;
  const visit = (i: number, j: number) => {
    const at = i * width + j;
    if (!seen[at]) {
      seen[at] = 1;
      stack.push(at);
    }
  };
  while (stack.length) {
    const at = stack.pop()!;
    const i = Math.floor(at / width);
    const j = at % width;
    if (i === p.length && j === q.length) return true;
    const x = i < p.length ? p[i] : undefined;
    const y = j < q.length ? q[j] : undefined;
    // A star may match nothing, or one more character of what the other side writes.
    if (x === '*') {
      visit(i + 1, j);
      if (y !== undefined) visit(i, j + 1);
    }
    if (y === '*') {
      visit(i, j + 1);
      if (x !== undefined) visit(i + 1, j);
    }
    if (x !== undefined && y !== undefined && x !== '*' && y !== '*' && x === y) visit(i + 1, j + 1);
  }
  return false;
}

/** Shell operators that join commands in one check step line: each part is a command of its own. */
const SEPARATORS = /&&|\|\||[;|&\n]/;

/**
 * The commands one line of a check step's `run` may run, as patterns: split at shell operators, leading
 * `NAME=value` assignments dropped, each `${{ … }}` (a value known only at run time) a `*`. Each part
 * comes with its offset in the line, for a diagnostic's range.
 */
export function commandsOf(line: string): { pattern: string; start: number; end: number }[] {
  const found: { pattern: string; start: number; end: number }[] = [];
  // Templates are masked first, same length, so an operator inside one (`a || b`) splits nothing.
  const masked = line.replace(/\$\{\{[\s\S]*?(\}\}|$)/g, (template) => '\uE000'.repeat(template.length));
  let offset = 0;
  for (const part of masked.split(SEPARATORS)) {
    const start = offset;
    offset += part.length;
    // (the separator's length: two characters for && and ||)
    const rest = masked.slice(offset);
    offset += rest.startsWith('&&') || rest.startsWith('||') ? 2 : 1;
    const lead = /^\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*/.exec(part)![0].length;
    const written = part.slice(lead).trimEnd();
    if (written === '') continue;
    const pattern = written.replace(/\uE000+/g, '*');
    found.push({ pattern, start: start + lead, end: start + lead + written.length });
  }
  return found;
}

/**
 * What is wrong with a command pattern (a role's `run` pattern, PB504; a gated one, PB702), if anything: it
 * must name a command (not start with `*` or be empty), and carry no shell operators that would let one
 * allowed command chain another.
 */
export function commandPatternProblem(
  value: string,
): { message: string; at?: number; length?: number } | undefined {
  if (value.trim() === '') return { message: 'it is empty' };
  if (value.trimStart().startsWith('*'))
    return { message: 'it must start with a command name, not "*"', at: value.indexOf('*'), length: 1 };
  const operator = /(&&|\|\||[;|&`<>]|\$\()/.exec(value);
  if (operator) {
    return {
      message: `shell operator "${shown(operator[0])}" would let an allowed command run others; list each command on its own`,
      at: operator.index,
      length: operator[0].length,
    };
  }
  if (/[\r\n]/.test(value))
    return { message: 'it spans several lines', at: value.search(/[\r\n]/), length: 1 };
  return undefined;
}
