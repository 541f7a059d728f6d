/**
 * Small structural edits of the YAML source that keep its style: add an item to a sequence (flow `[a, b]`,
 * block `- a`, or a scalar turned into a flow list) and add an entry to a mapping (block or flow), with the
 * indentation the file already uses. Each returns text edits in offsets; nothing is re-serialised.
 */
import { isMap, isScalar, isSeq } from 'yaml';
import type { Node, Pair, YAMLMap } from 'yaml';
import type { OffsetEdit } from './types.js';
import { keyText } from './yaml-document.js';

/** Where the line holding `offset` starts (after LF, CRLF or a lone CR). */
export function lineStartOf(text: string, offset: number): number {
  return Math.max(text.lastIndexOf('\n', offset - 1), text.lastIndexOf('\r', offset - 1)) + 1;
}

/** Where the line holding `offset` ends (before its line break). */
export function lineEndOf(text: string, offset: number): number {
  let end = offset;
  while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  return end;
}

export function columnOf(text: string, offset: number): number {
  return offset - lineStartOf(text, offset);
}

/** The end of the line holding the last character of a node (its trailing comment included). */
function contentLineEnd(text: string, start: number, end: number): number {
  let e = Math.min(end, text.length);
  while (e > start && /\s/.test(text[e - 1]!)) e--;
  return lineEndOf(text, Math.max(start, e - 1));
}

function pairEnd(text: string, pair: Pair): number {
  const key = (pair.key as Node | null)?.range;
  const value = (pair.value as Node | null)?.range;
  const start = key?.[0] ?? value?.[0] ?? 0;
  return contentLineEnd(text, start, Math.max(key?.[1] ?? 0, value?.[1] ?? 0));
}

function newline(text: string): string {
  if (text.includes('\r\n')) return '\r\n';
  return text.includes('\r') && !text.includes('\n') ? '\r' : '\n';
}

/** The indentation one level adds in this file: the step of a mapping's keys past its own key, else 2. */
export function indentUnit(text: string, parentKey: Node | null, body: YAMLMap | undefined): number {
  const parent = parentKey?.range?.[0];
  const first = (body?.items[0]?.key as Node | null | undefined)?.range?.[0];
  if (parent === undefined || first === undefined || body?.flow) return 2;
  const unit = columnOf(text, first) - columnOf(text, parent);
  return unit > 0 ? unit : 2;
}

/** Adds `item` to the sequence (or single scalar) that is the value of `pair`. */
export function addToSequence(text: string, pair: Pair, item: string): OffsetEdit[] {
  const value = pair.value as Node | null;
  const nl = newline(text);
  if (isSeq(value) && value.range) {
    const items = value.items as Node[];
    const last = items[items.length - 1];
    if (value.flow) {
      if (last?.range) return [{ range: at(last.range[1]), newText: `, ${item}` }];
      const open = text.indexOf('[', value.range[0]);
      return open >= 0 ? [{ range: at(open + 1), newText: item }] : [];
    }
    if (!last?.range) return [];
    const lineStart = lineStartOf(text, last.range[0]);
    const prefix = text.slice(lineStart, last.range[0]);
    const marker = /^\s*-\s+$/.test(prefix) ? prefix : `${' '.repeat(columnOf(text, value.range[0]))}- `;
    return [
      { range: at(contentLineEnd(text, last.range[0], last.range[1])), newText: `${nl}${marker}${item}` },
    ];
  }
  if (isScalar(value) && value.range && typeof value.value === 'string' && value.value !== '') {
    const written = text.slice(value.range[0], value.range[1]);
    return [{ range: { start: value.range[0], end: value.range[1] }, newText: `[${written}, ${item}]` }];
  }
  // `key:` with nothing after it.
  const keyEnd = (pair.key as Node | null)?.range?.[1];
  if (keyEnd === undefined) return [];
  const colon = text.indexOf(':', keyEnd);
  if (colon < 0) return [];
  const emptyEnd = value?.range ? Math.max(colon + 1, value.range[1]) : colon + 1;
  return [
    { range: { start: colon + 1, end: Math.min(emptyEnd, lineEndOf(text, colon)) }, newText: ` [${item}]` },
  ];
}

/**
 * Adds `key: value` to a mapping: `first` puts it before the other keys, else after them. Returns no edits
 * when the node is not a mapping with entries (or an empty flow mapping).
 */
export function addToMapping(
  text: string,
  map: unknown,
  key: string,
  value: string,
  first: boolean,
): OffsetEdit[] {
  if (!isMap(map) || !map.range) return [];
  const nl = newline(text);
  const items = map.items as Pair[];
  if (map.flow) {
    if (items.length === 0) {
      const open = text.indexOf('{', map.range[0]);
      return open >= 0 ? [{ range: at(open + 1), newText: ` ${key}: ${value} ` }] : [];
    }
    if (first) {
      const start = (items[0]!.key as Node | null)?.range?.[0];
      return start === undefined ? [] : [{ range: at(start), newText: `${key}: ${value}, ` }];
    }
    const last = items[items.length - 1]!;
    const end = Math.max(
      (last.key as Node | null)?.range?.[1] ?? 0,
      (last.value as Node | null)?.range?.[1] ?? 0,
    );
    return [{ range: at(end), newText: `, ${key}: ${value}` }];
  }
  const anchor = first ? items[0] : items[items.length - 1];
  const anchorKey = (anchor?.key as Node | null)?.range?.[0];
  if (anchor === undefined || anchorKey === undefined) return [];
  const column = columnOf(text, anchorKey);
  const indent = ' '.repeat(column);
  const onOwnLine = /^\s*$/.test(text.slice(lineStartOf(text, anchorKey), anchorKey));
  if (first) {
    return onOwnLine
      ? [{ range: at(lineStartOf(text, anchorKey)), newText: `${indent}${key}: ${value}${nl}` }]
      : [{ range: at(anchorKey), newText: `${key}: ${value}${nl}${indent}` }];
  }
  return [{ range: at(pairEnd(text, anchor)), newText: `${nl}${indent}${key}: ${value}` }];
}

/**
 * Adds `entryKey: entryValue` under the key `section` of the mapping `body` (a step), creating the section
 * as a nested mapping when it is missing or empty.
 */
export function addToSection(
  text: string,
  bodyKey: Node | null,
  body: unknown,
  section: string,
  entryKey: string,
  entryValue: string,
): OffsetEdit[] {
  if (!isMap(body)) return [];
  const map = body as YAMLMap;
  const pair = (map.items as Pair[]).find((p) => keyText(p) === section);
  const unit = indentUnit(text, bodyKey, map);
  const nl = newline(text);
  if (pair && isMap(pair.value)) {
    return addToMapping(text, pair.value, entryKey, entryValue, false);
  }
  if (pair) {
    const value = pair.value as Node | null;
    if (value && !(isScalar(value) && (value.value === null || value.value === ''))) return [];
    const keyRange = (pair.key as Node | null)?.range;
    if (!keyRange) return [];
    const colon = text.indexOf(':', keyRange[1]);
    if (colon < 0) return [];
    if (map.flow) return [{ range: at(colon + 1), newText: ` { ${entryKey}: ${entryValue} }` }];
    const indent = ' '.repeat(columnOf(text, keyRange[0]) + unit);
    return [{ range: at(colon + 1), newText: `${nl}${indent}${entryKey}: ${entryValue}` }];
  }
  if (map.flow) return addToMapping(text, map, section, `{ ${entryKey}: ${entryValue} }`, false);
  const last = (map.items as Pair[])[map.items.length - 1];
  const lastKey = (last?.key as Node | null | undefined)?.range?.[0];
  if (!last || lastKey === undefined) return [];
  const indent = ' '.repeat(columnOf(text, lastKey));
  return [
    {
      range: at(pairEnd(text, last)),
      newText: `${nl}${indent}${section}:${nl}${indent}${' '.repeat(unit)}${entryKey}: ${entryValue}`,
    },
  ];
}

function at(offset: number): { start: number; end: number } {
  return { start: offset, end: offset };
}
