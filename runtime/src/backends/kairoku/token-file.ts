/** The credential in a token file: the whole file, or the value of KAIROKU_TOKEN= in a token.env. */
export function readToken(text: string): string {
  const line = /^\s*(?:export\s+)?KAIROKU_TOKEN\s*=\s*["']?([^"'\s]+)["']?\s*$/m.exec(text);
  return (line ? line[1]! : text).trim();
}
