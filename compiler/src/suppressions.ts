import { createDiagnostic } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { SourceText } from './source-text.js';

interface Suppression {
  code: string;
  /** the 0-based line it silences */
  line: number;
  range: { start: number; end: number };
  used: boolean;
  /** it named an error there: errors are never silenced */
  namedError: boolean;
}

const EXPLORE_CODES = new Set(['PB310', 'PB311']);

const COMMENT = /(^|[ \t])#[ \t]*playbook-ignore\b([^\n\r]*)/g;

/**
 * Applies `# playbook-ignore CODE reason` comments: a comment at the end of a line silences that line,
 * one alone on its line silences the next. A suppression that silences nothing is reported (PB903).
 * Errors are never silenced: a playbook with one must not compile, so naming an error is reported too.
 * `insideValue` tells which offsets lie inside a YAML value (a quoted or block scalar), where a `#` is text.
 */
export function applySuppressions(
  file: string,
  text: string,
  diagnostics: Diagnostic[],
  source?: SourceText,
  insideValue?: (offset: number) => boolean,
): Diagnostic[] {
  if (!text.includes('playbook-ignore')) return diagnostics;
  const lines = source ?? new SourceText(text);
  const suppressions: Suppression[] = findSuppressions(text, lines, insideValue).map((found) => ({
    ...found,
    used: false,
    namedError: false,
  }));
  const kept = diagnostics.filter((diagnostic) => {
    const line = lines.positionAt(diagnostic.range.start).line;
    const suppression = suppressions.find((s) => s.code === diagnostic.code && s.line === line);
    if (!suppression) return true;
    if (diagnostic.severity === 'error') {
      suppression.namedError = true;
      return true;
    }
    suppression.used = true;
    return false;
  });
  for (const suppression of suppressions) {
    // PB310/PB311 come from `check --explore`, which applies those suppressions itself.
    if (suppression.used || EXPLORE_CODES.has(suppression.code)) continue;
    kept.push(
      createDiagnostic(
        file,
        'PB903',
        suppression.range,
        suppression.namedError
          ? `errors cannot be silenced: "playbook-ignore ${suppression.code}" leaves the error on line ${suppression.line + 1}; fix it instead`
          : `this "playbook-ignore ${suppression.code}" silences nothing on line ${suppression.line + 1}; remove it`,
      ),
    );
  }
  return kept;
}

/**
 * Every `# playbook-ignore CODE…` comment, one entry per code, with the 0-based line it silences: its
 * own line when it ends a line, the next when it stands alone. `insideValue` tells which offsets lie
 * inside a YAML value, where a `#` is text.
 */
export function findSuppressions(
  text: string,
  lines: SourceText,
  insideValue?: (offset: number) => boolean,
): { code: string; line: number; range: { start: number; end: number } }[] {
  const found: { code: string; line: number; range: { start: number; end: number } }[] = [];
  if (!text.includes('playbook-ignore')) return found;
  for (const match of text.matchAll(COMMENT)) {
    const hash = match.index + match[1]!.length;
    // "# playbook-ignore" inside a string (a prompt that explains it) is text, not a comment.
    if (insideValue?.(hash)) continue;
    const position = lines.positionAt(hash);
    const before = lines.lineText(position.line).slice(0, position.character);
    const line = before.trim() === '' ? position.line + 1 : position.line;
    const argsStart = hash + match[0].length - match[1]!.length - match[2]!.length;
    for (const code of match[2]!.matchAll(/\bPB\d{3}\b/g)) {
      const start = argsStart + code.index;
      found.push({ code: code[0], line, range: { start, end: start + code[0].length } });
    }
  }
  return found;
}
