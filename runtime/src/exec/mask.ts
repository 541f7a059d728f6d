import { MASK } from '@kairoku-playbook/machine';

/** Shorter values would mask ordinary words; the rule the transition function's scrubbing uses. */
const MIN_SECRET_LENGTH = 4;

/**
 * The values to mask for a check's env: each value of 4 characters or more, and of a value on
 * several lines (a key file) each line of that length too, since tools re-indent or print one line
 * of it. Longest first, so a value that contains another is masked whole.
 */
export function secretValues(env: Record<string, string>): string[] {
  const values = new Set<string>();
  for (const value of Object.values(env)) {
    if (value.length >= MIN_SECRET_LENGTH) values.add(value);
    if (!value.includes('\n')) continue;
    for (const line of value.split(/\r?\n/)) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_SECRET_LENGTH) values.add(trimmed);
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Every occurrence of every secret becomes `MASK`. */
export function maskText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(MASK);
  return out;
}

/**
 * Where output was cut, a secret may have been cut too and escaped `maskText`: the text's end (or its
 * start) that is the beginning (or the end) of a secret is masked as well.
 */
export function maskCutEdge(text: string, secrets: readonly string[], edge: 'start' | 'end'): string {
  let longest = 0;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n > longest; n--) {
      const piece = edge === 'end' ? secret.slice(0, n) : secret.slice(secret.length - n);
      if (edge === 'end' ? text.endsWith(piece) : text.startsWith(piece)) {
        longest = n;
        break;
      }
    }
  }
  if (!longest) return text;
  return edge === 'end' ? text.slice(0, text.length - longest) + MASK : MASK + text.slice(longest);
}
