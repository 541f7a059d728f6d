/**
 * Texts the CLI prints whole: the JSON Schema of the playbook surface, the IR's schema and the
 * diagnostics reference. Run from source (tests), they are read from the repository when asked for;
 * cli/build.mjs replaces this module with one that holds the texts, so neither the npm package's
 * bundle nor the single executable needs a file beside it to print them.
 */
import { readFileSync } from 'node:fs';

/** Each asset's path in the repository. */
export const ASSETS = {
  playbookSchema: 'grammar/schema/playbook.schema.json',
  irSchema: 'compiler/schema/ir.schema.json',
  diagnosticsReference: 'docs/diagnostics.md',
  // The Playbooks panel that `serve` serves (panel/build.mjs builds them before the CLI's bundle).
  panelIndex: 'panel/dist/index.html',
  panelScript: 'panel/dist/panel.js',
  panelStyle: 'panel/dist/panel.css',
  panelIcon: 'panel/dist/favicon.svg',
  // The playground that `playground` serves (playground/build.mjs builds it before the CLI's bundle).
  playgroundIndex: 'docs/playground/index.html',
  playgroundScript: 'docs/playground/playground.js',
  playgroundStyle: 'docs/playground/playground.css',
} as const;

export type AssetName = keyof typeof ASSETS;

export function assetText(name: AssetName): string {
  return readFileSync(new URL(`../../${ASSETS[name]}`, import.meta.url), 'utf8');
}
