/** Types of vsix-rules.mjs, for the tests that import it. */
export interface VsixEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  extraFieldBytes: number;
}
export interface Vsix {
  size: number;
  entries: VsixEntry[];
  files: Map<string, Buffer>;
}
export const BUDGET: { vsixBytes: number; fileBytes: number };
export function readVsix(zip: Buffer): Vsix;
export function parseVsixManifest(xml: string): {
  identity: Record<string, string>;
  displayName?: string;
  description?: string;
  tags?: string;
  categories?: string;
  license?: string;
  icon?: string;
  properties: Record<string, string>;
  assets: Record<string, string>;
};
export function pngSize(bytes: Buffer): { width: number; height: number } | undefined;
export function impliedActivationEvents(manifest: {
  contributes?: { commands?: { command: string }[]; languages?: { id: string; configuration?: string }[] };
}): string[];
export function minimumEngine(range: string | undefined): { major: number; minor: number } | undefined;
export function markdownLinks(markdown: string): { image: boolean; target: string }[];
/** Every rule the .vsix breaks, each as `[source] what is wrong`. */
export function vsixProblems(vsix: Vsix): string[];
