import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CODES } from '@kairoku-playbook/compiler';
import type { Diagnostic, OffsetRange, Severity } from '@kairoku-playbook/compiler';
import { helpUri } from '../diagnostics-reference.js';
import { REPOSITORY_URL } from '../version.js';
import { normaliseRange, sortDiagnostics, spanOf, type SourceOf } from './common.js';

export interface SarifFormatOptions {
  /** the CLI's version, reported as the tool's version */
  toolVersion: string;
  /** the folder relative file names are relative to (the command's working folder) */
  cwd?: string;
  /**
   * The source root, `%SRCROOT%` (the repository's top folder, for code scanning): files inside it
   * become URIs relative to it, files outside absolute `file:` URIs. Defaults to `cwd`.
   */
  root?: string;
}

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';
export const INFORMATION_URI = REPOSITORY_URL;
export const SRCROOT = '%SRCROOT%';

export { helpUri };

export type SarifLevel = 'error' | 'warning' | 'note';

const LEVEL: Record<Severity, SarifLevel> = { error: 'error', warning: 'warning', info: 'note' };

export interface SarifArtifactLocation {
  uri: string;
  uriBaseId?: string;
}

export interface SarifRegion {
  startLine?: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
  charOffset?: number;
  charLength?: number;
}

export interface SarifPhysicalLocation {
  artifactLocation: SarifArtifactLocation;
  region?: SarifRegion;
}

export interface SarifLocation {
  id?: number;
  physicalLocation: SarifPhysicalLocation;
  message?: { text: string };
}

export interface SarifReportingDescriptor {
  id: string;
  shortDescription: { text: string };
  helpUri: string;
  defaultConfiguration: { level: SarifLevel };
}

export interface SarifFix {
  description: { text: string };
  artifactChanges: {
    artifactLocation: SarifArtifactLocation;
    replacements: { deletedRegion: SarifRegion; insertedContent: { text: string } }[];
  }[];
}

export interface SarifResult {
  ruleId: string;
  ruleIndex?: number;
  level: SarifLevel;
  message: { text: string };
  locations: SarifLocation[];
  relatedLocations?: SarifLocation[];
  fixes?: SarifFix[];
}

export interface SarifLog {
  $schema: string;
  version: '2.1.0';
  runs: {
    tool: {
      driver: {
        name: string;
        informationUri: string;
        version: string;
        rules: SarifReportingDescriptor[];
      };
    };
    originalUriBaseIds?: Record<string, { uri: string }>;
    columnKind: 'utf16CodeUnits';
    results: SarifResult[];
  }[];
}

/** Where relative file names are resolved, and what they are made relative to. */
interface Base {
  cwd: string | undefined;
  root: string | undefined;
}

/** The URI of a file: relative to `%SRCROOT%` where possible, else an absolute `file:` URI. */
function artifactLocation(file: string, { cwd, root }: Base): SarifArtifactLocation {
  let path = file;
  const absolute = isAbsolute(file) ? file : cwd === undefined ? undefined : resolve(cwd, file);
  if (absolute !== undefined) {
    const rel = root === undefined ? undefined : relative(root, absolute);
    if (rel === undefined || rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
      return { uri: pathToFileURL(absolute).href };
    }
    path = rel;
  }
  if (sep === '\\') path = path.replace(/\\/g, '/');
  path = path.replace(/^(\.\/)+/, '');
  return { uri: path.split('/').map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
}

function region(file: string, range: OffsetRange, sourceOf: SourceOf): SarifRegion | undefined {
  const span = spanOf(file, range, sourceOf);
  return span
    ? { startLine: span.line, startColumn: span.column, endLine: span.endLine, endColumn: span.endColumn }
    : undefined;
}

function physicalLocation(
  file: string,
  range: OffsetRange,
  sourceOf: SourceOf,
  base: Base,
): SarifPhysicalLocation {
  const location: SarifPhysicalLocation = { artifactLocation: artifactLocation(file, base) };
  const r = region(file, range, sourceOf);
  if (r) location.region = r;
  return location;
}

/** Builds the SARIF log as an object (`formatSarif` serialises it). */
export function toSarif(
  diagnostics: Diagnostic[],
  sourceOf: SourceOf,
  options: SarifFormatOptions,
): SarifLog {
  const codes = Object.keys(CODES) as (keyof typeof CODES)[];
  const ruleIndex = new Map<string, number>(codes.map((code, i) => [code, i]));
  const base: Base = { cwd: options.cwd, root: options.root ?? options.cwd };
  const rules = codes.map((code): SarifReportingDescriptor => ({
    id: code,
    shortDescription: { text: CODES[code].title },
    helpUri: helpUri(code),
    defaultConfiguration: { level: LEVEL[CODES[code].severity] },
  }));
  const results = sortDiagnostics(diagnostics).map((diagnostic): SarifResult => {
    const result: SarifResult = {
      ruleId: diagnostic.code,
      level: LEVEL[diagnostic.severity],
      message: { text: diagnostic.message },
      locations: [],
    };
    const index = ruleIndex.get(diagnostic.code);
    if (index !== undefined) result.ruleIndex = index;
    result.locations.push({
      physicalLocation: physicalLocation(diagnostic.file, diagnostic.range, sourceOf, base),
    });
    if (diagnostic.related?.length) {
      result.relatedLocations = diagnostic.related.map((related, i) => ({
        id: i + 1,
        physicalLocation: physicalLocation(related.file, related.range, sourceOf, base),
        message: { text: related.message },
      }));
    }
    if (diagnostic.fix) {
      result.fixes = [
        {
          description: { text: diagnostic.fix.title },
          artifactChanges: [
            {
              artifactLocation: artifactLocation(diagnostic.file, base),
              replacements: diagnostic.fix.edits.map((edit) => {
                let deletedRegion = region(diagnostic.file, edit.range, sourceOf);
                if (!deletedRegion) {
                  // Without the text, the region is given as UTF-16 offsets instead.
                  const { start, end } = normaliseRange(edit.range, Number.MAX_SAFE_INTEGER);
                  deletedRegion = { charOffset: start, charLength: end - start };
                }
                return { deletedRegion, insertedContent: { text: edit.newText } };
              }),
            },
          ],
        },
      ];
    }
    return result;
  });
  const run: SarifLog['runs'][number] = {
    tool: {
      driver: {
        name: 'kairoku-playbook',
        informationUri: INFORMATION_URI,
        version: options.toolVersion,
        rules,
      },
    },
    columnKind: 'utf16CodeUnits',
    results,
  };
  if (base.root !== undefined) {
    const root = pathToFileURL(base.root).href;
    run.originalUriBaseIds = { [SRCROOT]: { uri: root.endsWith('/') ? root : `${root}/` } };
  }
  return { $schema: SARIF_SCHEMA, version: '2.1.0', runs: [run] };
}

/** SARIF 2.1.0, pretty-printed with two spaces and ending with a newline. */
export function formatSarif(
  diagnostics: Diagnostic[],
  sourceOf: SourceOf,
  options: SarifFormatOptions,
): string {
  return JSON.stringify(toSarif(diagnostics, sourceOf, options), null, 2) + '\n';
}
