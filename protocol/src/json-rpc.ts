/**
 * The language server and the MCP server both read ids this way (their stdio transports).
 *
 * The id of a JSON-RPC message that cannot be parsed whole (too large, cut short, not JSON), read from its
 * first and last bytes, so the refusal can be the answer to the request the client is waiting on.
 * vscode-jsonrpc clients write the id near the start (`{"jsonrpc":"2.0","id":7,...`); others, like the MCP
 * SDK, at the end (`...,"jsonrpc":"2.0","id":7}`). Both places are read; anything unsure gives undefined.
 */
export type RequestId = number | string;

/** An integer or a string literal, complete (followed by a delimiter). */
const ID_LITERAL = /^(?:-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")(?=\s*[,}])/;
/**
 * `,"id":LITERAL}` closing the text: in valid JSON this `"id"` is a key of the outermost object (a key of a
 * nested object would be followed by two closing braces, and a string cannot hold a bare `"`).
 */
const ID_AT_END = /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

export function readRequestId(head: string, tail: string): RequestId | undefined {
  return idNearStart(head) ?? idAtEnd(tail);
}

function literal(text: string): RequestId | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

function idAtEnd(text: string): RequestId | undefined {
  const match = ID_AT_END.exec(text.slice(-4096));
  return match ? literal(match[1]!) : undefined;
}

/** Walks the members of the outermost object, skipping values, until `"id"` (or the text ends). */
function idNearStart(text: string): RequestId | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return undefined;
  i++;
  for (let members = 0; members < 64; members++) {
    i = skipSpace(text, i);
    if (text[i] !== '"') return undefined;
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    i = skipSpace(text, i + 1);
    if (key === 'id') {
      const match = ID_LITERAL.exec(text.slice(i, i + 600));
      return match ? literal(match[0]) : undefined;
    }
    i = valueEnd(text, i);
    if (i < 0) return undefined;
    i = skipSpace(text, i);
    if (text[i] !== ',') return undefined;
    i++;
  }
  return undefined;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r'))
    i++;
  return i;
}

/** The index after the string that opens at `i`, or -1 when the text ends first. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j + 1;
  }
  return -1;
}

/** The index after the value that starts at `i` (strings, nested objects and arrays, literals), or -1. */
function valueEnd(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  if (text[i] === '{' || text[i] === '[') {
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (c === '"') {
        j = stringEnd(text, j) - 1;
        if (j < 0) return -1;
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < text.length && !/[\s,}\]]/.test(text[j]!)) j++;
  return j < text.length ? j : -1;
}
