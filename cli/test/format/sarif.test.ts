import { describe, expect, it } from 'vitest';
import { CODES, SourceText } from '@kairoku-playbook/compiler';
import type { Code } from '@kairoku-playbook/compiler';
import { isCode } from '../../src/diagnostics-reference.js';
import { formatSarif, helpUri, toSarif, type SarifLog } from '../../src/format/sarif.js';
import { sampleDiagnostics, sourceOf } from './fixtures.js';

const log = (): SarifLog =>
  JSON.parse(formatSarif(sampleDiagnostics(), sourceOf, { toolVersion: '1.2.3' })) as SarifLog;

describe('formatSarif', () => {
  it('is a SARIF 2.1.0 log with one run, pretty-printed, ending with a newline', () => {
    const out = formatSarif([], sourceOf, { toolVersion: '1.2.3' });
    expect(
      out.startsWith(
        '{\n  "$schema": "https://json.schemastore.org/sarif-2.1.0.json",\n  "version": "2.1.0",\n',
      ),
    ).toBe(true);
    expect(out.endsWith('}\n')).toBe(true);
    const parsed = JSON.parse(out) as SarifLog;
    expect(parsed.runs).toHaveLength(1);
    const run = parsed.runs[0]!;
    expect(run.columnKind).toBe('utf16CodeUnits');
    expect(run.results).toEqual([]);
    expect(run.originalUriBaseIds).toBeUndefined();
    expect(run.tool.driver).toMatchObject({
      name: 'kairoku-playbook',
      informationUri: 'https://github.com/kairoku/kairoku-playbook',
      version: '1.2.3',
    });
  });

  it('has a rule for every code, in table order', () => {
    const { rules } = log().runs[0]!.tool.driver;
    expect(rules).toHaveLength(Object.keys(CODES).length);
    expect(rules.map((r) => r.id)).toEqual(Object.keys(CODES));
    expect(rules[0]).toEqual({
      id: 'PB100',
      shortDescription: { text: 'YAML syntax error' },
      helpUri:
        'https://github.com/kairoku/kairoku-playbook/blob/v0.1.0/docs/diagnostics.md#pb100-yaml-syntax-error',
      defaultConfiguration: { level: 'error' },
    });
    const level = (id: string) => rules.find((r) => r.id === id)!.defaultConfiguration.level;
    expect(level('PB310')).toBe('warning');
    expect(level('PB900')).toBe('warning');
    expect(level('PB901')).toBe('note');
    for (const rule of rules) {
      if (!isCode(rule.id)) throw new Error(`a rule that is not a diagnostic code: ${rule.id}`);
      expect(rule.helpUri).toBe(helpUri(rule.id));
      expect(rule.helpUri).toMatch(
        /^https:\/\/github\.com\/kairoku\/kairoku-playbook\/blob\/v\d+\.\d+\.\d+\/docs\/diagnostics\.md#pb\d{3}(-[a-z0-9-]+)?$/,
      );
      expect(rule.shortDescription.text).toBe(CODES[rule.id as keyof typeof CODES].title);
    }
  });

  it('gives each result its rule, level, message and region', () => {
    const run = log().runs[0]!;
    expect(run.results.map((r) => r.ruleId)).toEqual([
      'PB106',
      'PB103',
      'PB100',
      'PB300',
      'PB200',
      'PB900',
      'PB202',
      'PB203',
      'PB901',
      'PB400',
      'PB103',
    ]);
    for (const result of run.results) {
      expect(run.tool.driver.rules[result.ruleIndex!]!.id).toBe(result.ruleId);
      expect(result.locations).toHaveLength(1);
      expect(result.locations[0]!.physicalLocation.artifactLocation.uriBaseId).toBe('%SRCROOT%');
    }
    const byCode = (code: string) => run.results.find((r) => r.ruleId === code)!;
    expect(byCode('PB900').level).toBe('warning');
    expect(byCode('PB901').level).toBe('note');
    expect(byCode('PB202')).toEqual({
      ruleId: 'PB202',
      ruleIndex: Object.keys(CODES).indexOf('PB202'),
      level: 'error',
      message: { text: 'unknown input "tsk"; did you mean "task"?' },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: 'playbooks/pr.yml', uriBaseId: '%SRCROOT%' },
            region: { startLine: 7, startColumn: 42, endLine: 7, endColumn: 45 },
          },
        },
      ],
    });
    // two lines
    expect(byCode('PB901').locations[0]!.physicalLocation.region).toEqual({
      startLine: 9,
      startColumn: 5,
      endLine: 10,
      endColumn: 15,
    });
    // CRLF, and an empty range at the end of the file
    expect(
      run.results.filter((r) => r.ruleId === 'PB103').map((r) => r.locations[0]!.physicalLocation.region),
    ).toEqual([
      { startLine: 3, startColumn: 10, endLine: 3, endColumn: 10 },
      { startLine: 13, startColumn: 1, endLine: 13, endColumn: 1 },
    ]);
    // no text: the file without a region
    expect(byCode('PB100').locations[0]!.physicalLocation).toEqual({
      artifactLocation: { uri: 'playbooks/gone.yml', uriBaseId: '%SRCROOT%' },
    });
  });

  it('lists related locations with ids and messages', () => {
    const result = log().runs[0]!.results.find((r) => r.ruleId === 'PB300')!;
    expect(result.relatedLocations).toEqual([
      {
        id: 1,
        physicalLocation: {
          artifactLocation: { uri: 'playbooks/pr.yml', uriBaseId: '%SRCROOT%' },
          region: { startLine: 5, startColumn: 13, endLine: 5, endColumn: 18 },
        },
        message: { text: 'review needs reviw' },
      },
      {
        id: 2,
        physicalLocation: { artifactLocation: { uri: 'playbooks/other.yml', uriBaseId: '%SRCROOT%' } },
        message: { text: 'declared here' },
      },
    ]);
    expect(log().runs[0]!.results.find((r) => r.ruleId === 'PB200')!.relatedLocations).toBeUndefined();
  });

  it('turns quick-fixes into fixes with replacements', () => {
    const results = log().runs[0]!.results;
    expect(results.find((r) => r.ruleId === 'PB200')!.fixes).toEqual([
      {
        description: { text: 'change to "review"' },
        artifactChanges: [
          {
            artifactLocation: { uri: 'playbooks/pr.yml', uriBaseId: '%SRCROOT%' },
            replacements: [
              {
                deletedRegion: { startLine: 5, startColumn: 13, endLine: 5, endColumn: 18 },
                insertedContent: { text: 'review' },
              },
            ],
          },
        ],
      },
    ]);
    expect(results.find((r) => r.ruleId === 'PB106')!.fixes![0]!.artifactChanges[0]!.replacements).toEqual([
      {
        deletedRegion: { startLine: 1, startColumn: 10, endLine: 1, endColumn: 11 },
        insertedContent: { text: '1' },
      },
    ]);
    expect(results.find((r) => r.ruleId === 'PB202')!.fixes).toBeUndefined();
  });

  it('gives a fix without the file text as character offsets', () => {
    const sarif = toSarif(
      [
        {
          file: 'a.yml',
          range: { start: 7, end: 3 },
          severity: 'error',
          code: 'PB102',
          message: 'unknown key',
          fix: { title: 'remove it', edits: [{ range: { start: 3, end: 7 }, newText: '' }] },
        },
      ],
      () => undefined,
      { toolVersion: '0.0.0' },
    );
    expect(sarif.runs[0]!.results[0]!.fixes![0]!.artifactChanges[0]!.replacements).toEqual([
      { deletedRegion: { charOffset: 3, charLength: 4 }, insertedContent: { text: '' } },
    ]);
  });

  it('makes paths relative to cwd, encoded as URIs, and absolute file: URIs outside it', () => {
    const source = new SourceText('x\n');
    const sarif = toSarif(
      [
        {
          file: '/repo/play books/a#1.yml',
          range: { start: 0, end: 1 },
          severity: 'error',
          code: 'PB100',
          message: 'a',
        },
        { file: '/other/b.yml', range: { start: 0, end: 1 }, severity: 'error', code: 'PB100', message: 'b' },
        // (deliberately a code outside the table: it keeps its ruleId, below)
        {
          file: './c.yml',
          range: { start: 0, end: 1 },
          severity: 'error',
          code: 'PB999' as Code,
          message: 'c',
        },
      ],
      () => source,
      { toolVersion: '0.0.0', cwd: '/repo' },
    );
    const run = sarif.runs[0]!;
    expect(run.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: 'file:///repo/' } });
    // (sorted by the file as given: './c.yml' < '/other/…' < '/repo/…')
    expect(run.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation)).toEqual([
      { uri: 'c.yml', uriBaseId: '%SRCROOT%' },
      { uri: 'file:///other/b.yml' },
      { uri: 'play%20books/a%231.yml', uriBaseId: '%SRCROOT%' },
    ]);
    // a code outside the table keeps its ruleId but has no ruleIndex
    const unknown = run.results.find((r) => r.ruleId === 'PB999')!;
    expect(unknown.ruleIndex).toBeUndefined();
  });

  it('places files relative to the root, not to the folder it ran in', () => {
    const source = new SourceText('x\n');
    const diagnostic = (file: string) =>
      ({ file, range: { start: 0, end: 1 }, severity: 'error', code: 'PB100', message: file }) as const;
    const sarif = toSarif(
      [diagnostic('pr.yml'), diagnostic('../shared/a.yml'), diagnostic('../../../elsewhere/b.yml')],
      () => source,
      { toolVersion: '0.0.0', cwd: '/repo/team/playbooks', root: '/repo' },
    );
    const run = sarif.runs[0]!;
    expect(run.originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: 'file:///repo/' } });
    expect(
      Object.fromEntries(
        run.results.map((r) => [r.message.text, r.locations[0]!.physicalLocation.artifactLocation]),
      ),
    ).toEqual({
      'pr.yml': { uri: 'team/playbooks/pr.yml', uriBaseId: '%SRCROOT%' },
      '../shared/a.yml': { uri: 'team/shared/a.yml', uriBaseId: '%SRCROOT%' },
      '../../../elsewhere/b.yml': { uri: 'file:///elsewhere/b.yml' },
    });
  });

  it('keeps relative names as they are without a folder to resolve them in', () => {
    const sarif = toSarif(
      [{ file: 'a/b.yml', range: { start: 0, end: 0 }, severity: 'error', code: 'PB100', message: 'm' }],
      () => undefined,
      { toolVersion: '0.0.0', root: '/repo' },
    );
    expect(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.artifactLocation).toEqual({
      uri: 'a/b.yml',
      uriBaseId: '%SRCROOT%',
    });
  });
});
