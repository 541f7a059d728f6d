/**
 * Formatting never changes what a playbook means (issue 13): every fixture under test/fixtures that
 * parses is formatted with Prettier's YAML printer (Prettier's defaults, and a config that reflows
 * everything it may), then compiled again. An ok fixture compiles to the same IR (but
 * for the hash of its text); an err fixture gets the same diagnostic codes. A fixture with a YAML error
 * (PB100) is refused, never rewritten; so is a file whose value or diagnostics formatting would change
 * (a narrow printWidth moving a trailing `# playbook-ignore` comment off its line; Prettier's
 * `proseWrap: always` reflowing a folded scalar's more-indented line). Formatting twice changes nothing
 * the second time.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeFile, compilePlaybook, serializeIr, validateWorkspace } from '@kairoku-playbook/compiler';
import type { WorkspaceFile } from '@kairoku-playbook/compiler';
import { formatPlaybook } from '@kairoku-playbook/lsp';
import type { PrettierOptions } from '@kairoku-playbook/lsp';
import { FIXTURES, fixtureNames } from './support/fixtures.js';

/** Each config, and whether a fixture may be refused with it (see below). */
const CONFIGS: [string, PrettierOptions | null, boolean][] = [
  ['Prettier defaults', null, false],
  [
    'a narrow config',
    { printWidth: 30, singleQuote: true, bracketSpacing: false, proseWrap: 'always' },
    true,
  ],
];

function filesOf(folder: 'ok' | 'err', name: string): WorkspaceFile[] {
  const names = /\.ya?ml$/.test(name)
    ? [name]
    : readdirSync(join(FIXTURES, folder, name))
        .filter((n) => /\.ya?ml$/.test(n))
        .sort()
        .map((n) => `${name}/${n}`);
  return names.map((n) => ({
    file: `test/fixtures/${folder}/${n}`,
    text: readFileSync(join(FIXTURES, folder, n), 'utf8'),
  }));
}

/**
 * The IR as JSON without what formatting changes by design: the hash of the text, and the `[line,
 * column]` each template part and step points back at (`at`, for the runtime's messages).
 */
function irOf(file: string, text: string): string {
  const { ir } = compilePlaybook(file, text);
  if (!ir) return '(no IR)';
  const json = serializeIr({ ...ir, source: { ...ir.source, sha256: '' } });
  return JSON.stringify(JSON.parse(json), (key, value: unknown) => (key === 'at' ? undefined : value), 2);
}

async function formatAll(files: readonly WorkspaceFile[], options: PrettierOptions | null) {
  const formatted: WorkspaceFile[] = [];
  const refused: string[] = [];
  for (const { file, text } of files) {
    const result = await formatPlaybook(analyzeFile(file, text), options);
    if ('refused' in result) refused.push(`${file}: ${result.refused}`);
    formatted.push({ file, text: 'refused' in result ? text : result.text });
  }
  return { formatted, refused };
}

const codes = (files: readonly WorkspaceFile[]) =>
  validateWorkspace(files)
    .diagnostics.map((d) => `${d.file} ${d.code}`)
    .sort();

describe.each(CONFIGS)('formatting every fixture with %s', (_, options, mayRefuse) => {
  it('keeps the IR of every ok fixture, and is stable', async () => {
    let changed = 0;
    for (const name of fixtureNames('ok')) {
      const files = filesOf('ok', name);
      const { formatted, refused } = await formatAll(files, options);
      // Refused only with the narrow config: where a "# playbook-ignore" comment would leave its line, and
      // where Prettier's proseWrap: always reflows a folded scalar with a more-indented line (yaml-styles.yml),
      // a change of value. The file is then left as it is (checked below: same IR).
      const allowed = /would get other diagnostics|would change what this file means/;
      expect(refused.filter((r) => !mayRefuse || !allowed.test(r))).toEqual([]);
      for (let i = 0; i < files.length; i++) {
        const before = files[i]!;
        const after = formatted[i]!;
        if (after.text !== before.text) changed++;
        expect({ file: before.file, ir: irOf(after.file, after.text) }).toEqual({
          file: before.file,
          ir: irOf(before.file, before.text),
        });
      }
      expect(codes(formatted)).toEqual(codes(files));
      const again = await formatAll(formatted, options);
      expect(again.formatted.map((f) => f.text)).toEqual(formatted.map((f) => f.text));
    }
    // (the fixtures are not all formatted already: the comparison above compared something)
    expect(changed).toBeGreaterThan(0);
  }, 300_000);

  it('keeps the diagnostic codes of every err fixture, and never touches one with a YAML error', async () => {
    let touched = 0;
    let untouched = 0;
    for (const name of fixtureNames('err')) {
      const files = filesOf('err', name);
      const { formatted, refused } = await formatAll(files, options);
      for (let i = 0; i < files.length; i++) {
        const hasYamlError = analyzeFile(files[i]!.file, files[i]!.text).diagnostics.some(
          (d) => d.code === 'PB100',
        );
        if (hasYamlError) {
          untouched++;
          expect(refused.some((r) => r.startsWith(`${files[i]!.file}: not formatted: line `))).toBe(true);
          expect(formatted[i]!.text).toBe(files[i]!.text);
        } else if (formatted[i]!.text !== files[i]!.text) touched++;
      }
      expect({ name, codes: codes(formatted) }).toEqual({ name, codes: codes(files) });
    }
    expect(touched).toBeGreaterThan(0);
    expect(untouched).toBeGreaterThan(0);
  }, 300_000);
});
