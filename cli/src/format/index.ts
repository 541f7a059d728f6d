export { formatText, MAX_FRAME_LINES, type TextFormatOptions } from './text.js';
export { formatJson } from './json.js';
export { formatSarif, toSarif, helpUri, type SarifFormatOptions, type SarifLog } from './sarif.js';
export { formatGithub, escapeData, escapeProperty, type GithubFormatOptions } from './github.js';
export { sortDiagnostics, type SourceOf } from './common.js';

export const OUTPUT_FORMATS = ['text', 'json', 'sarif', 'github'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function isOutputFormat(value: string): value is OutputFormat {
  return (OUTPUT_FORMATS as readonly string[]).includes(value);
}
