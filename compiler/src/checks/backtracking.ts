import { RegExpParser } from '@eslint-community/regexpp';
import type { Alternative, Element, Node, Quantifier } from '@eslint-community/regexpp/ast';

export interface Backtracking {
  /** the repetition at fault, as offsets into the pattern */
  start: number;
  end: number;
  why: string;
  /** what to write instead */
  fix: string;
}

/**
 * Where a regular expression can take exponential time on a value that almost matches (catastrophic
 * backtracking), as offsets into the pattern, and why; undefined when none of the known shapes is there.
 * Two shapes are found, the ones behind nearly every such freeze:
 *
 * - a repetition of something that itself repeats, with nothing mandatory between its turns to tell
 *   where one ends: `(a+)+`, `(\w+\s?)*`, `(x+y*)+` (while `([a-z]+-)*` is fine: each turn ends at `-`);
 * - a repetition of alternatives that match the same character: `(\d|\w)+`, `(a|a)*`.
 *
 * A pattern can still be slow in polynomial time (`\d+\d+x` on a long run of digits): the places that
 * run a playbook's patterns on values bound the time they take (serve validates in a worker).
 */
export function catastrophicPart(pattern: string): Backtracking | undefined {
  let ast;
  try {
    ast = new RegExpParser({ ecmaVersion: 2025 }).parsePattern(pattern, 0, pattern.length, { unicode: true });
  } catch {
    return undefined; // not a valid pattern: PB104 says so
  }
  let found: Backtracking | undefined;
  const visit = (node: Node): void => {
    if (found) return;
    if (node.type === 'Quantifier' && repeatsMany(node)) found = dangerIn(node);
    for (const child of childrenOf(node)) visit(child);
  };
  visit(ast);
  return found;
}

function dangerIn(outer: Quantifier): Backtracking | undefined {
  const alternatives = alternativesOf(outer.element);
  if (alternatives.some(floats))
    return {
      start: outer.start,
      end: outer.end,
      why: 'it repeats something that itself repeats, with nothing between the turns to tell where one ends',
      fix: 'make each turn end at a character the repeated part cannot match (`([a-z]+-)*`), or drop the inner repetition',
    };
  const single = alternatives.filter((a) => a.elements.length === 1 && isCharacterLike(a.elements[0]!));
  for (let i = 0; i < single.length; i++)
    for (let j = i + 1; j < single.length; j++)
      if (overlap(single[i]!.elements[0]!, single[j]!.elements[0]!))
        return {
          start: outer.start,
          end: outer.end,
          why: `it repeats alternatives that match the same character ("${single[i]!.raw}" and "${single[j]!.raw}")`,
          fix: 'make them one character class (`[0-9a-f]+`)',
        };
  return undefined;
}

/** Repeated more than a few times: `*`, `+`, `{n,}`, `{n,m}` with m over 20. */
function repeatsMany(node: Quantifier): boolean {
  return node.max > 20;
}

/** An alternative whose turn can end anywhere inside a repetition of it: one free repeat, the rest optional. */
function floats(alternative: Alternative): boolean {
  return alternative.elements.some(
    (element, i) =>
      repeatsFreely(element) && alternative.elements.every((other, j) => j === i || nullable(other)),
  );
}

function repeatsFreely(element: Element): boolean {
  if (element.type === 'Quantifier') return element.max > 1 && !nullableOnly(element.element);
  if (element.type === 'Group' || element.type === 'CapturingGroup') return element.alternatives.some(floats);
  return false;
}

/** Can match the empty string. */
function nullable(element: Element): boolean {
  switch (element.type) {
    case 'Quantifier':
      return element.min === 0 || nullable(element.element as Element);
    case 'Group':
    case 'CapturingGroup':
      return element.alternatives.some((a) => a.elements.every(nullable));
    case 'Assertion':
    case 'Backreference':
      return true;
    default:
      return false;
  }
}

/** Matches only the empty string (an assertion): repeating it repeats nothing. */
function nullableOnly(element: Node): boolean {
  return element.type === 'Assertion';
}

function alternativesOf(element: Node): readonly Alternative[] {
  if (element.type === 'Group' || element.type === 'CapturingGroup') return element.alternatives;
  return [];
}

function isCharacterLike(element: Element): boolean {
  return element.type === 'Character' || element.type === 'CharacterClass' || element.type === 'CharacterSet';
}

/** Characters tried to see whether two one-character matchers share one: ASCII and a few beyond it. */
const SAMPLES = [
  ...Array.from({ length: 128 }, (_, i) => String.fromCodePoint(i)),
  '\u00a0',
  '\u00e9',
  '\u2028',
  '\u4e2d',
  '\u{1f600}',
];

function overlap(a: Element, b: Element): boolean {
  const matcherOf = (element: Element) => {
    try {
      return new RegExp(`^(?:${element.raw})$`, 'u');
    } catch {
      return undefined;
    }
  };
  const x = matcherOf(a);
  const y = matcherOf(b);
  return x !== undefined && y !== undefined && SAMPLES.some((c) => x.test(c) && y.test(c));
}

function childrenOf(node: Node): readonly Node[] {
  switch (node.type) {
    case 'Pattern':
    case 'Group':
    case 'CapturingGroup':
      return node.alternatives;
    case 'Alternative':
      return node.elements;
    case 'Quantifier':
      return [node.element];
    case 'Assertion':
      return node.kind === 'lookahead' || node.kind === 'lookbehind' ? node.alternatives : [];
    default:
      return [];
  }
}
