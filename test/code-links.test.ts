/**
 * One home for the link to a code's explanation (compiler/src/code-links.ts): `explain`'s "Online:"
 * line, SARIF's helpUri and the language server's codeDescription all give `codeLink(code)`, the
 * code's section of docs/diagnostics.md in the repository at this version's tag.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CODES, REPOSITORY_URL, codeLink } from '@kairoku-playbook/compiler';
import { PlaybookLanguageService, nodeFileSystem } from '@kairoku-playbook/lsp';
import { helpUri } from '../cli/src/diagnostics-reference.js';
import { main } from '../cli/src/main.js';
import { tempDir } from './kit/index.js';

const BAD = `version: 1
title: Plan and build
steps:
  plan:
    role: planner
    prompt: Plan.
  build:
    needs: [plna]
    role: implementer
    prompt: Build.
`;

function cli(argv: string[], cwd: string): string {
  let stdout = '';
  const code = main(argv, {
    cwd,
    stdout: (t) => (stdout += t),
    stderr: () => {},
    color: false,
    colorStderr: false,
  });
  if (typeof code !== 'number') throw new Error(`${argv.join(' ')} did not answer at once`);
  return stdout;
}

describe('code links', () => {
  it('lead to the code’s section of docs/diagnostics.md in the repository, for every code', () => {
    for (const code of Object.keys(CODES) as (keyof typeof CODES)[]) {
      expect(codeLink(code)).toMatch(
        new RegExp(
          `^${REPOSITORY_URL}/blob/v\\d+\\.\\d+\\.\\d+/docs/diagnostics\\.md#${code.toLowerCase()}-`,
        ),
      );
      expect(helpUri(code)).toBe(codeLink(code));
    }
  });

  it('are the same in explain, SARIF and the language server', () => {
    const folder = tempDir('kp-code-links-');
    try {
      const file = join(folder, 'bad.playbook.yml');
      writeFileSync(file, BAD);
      const link = codeLink('PB200');
      expect(cli(['explain', 'PB200'], folder)).toContain(`\nOnline: ${link}\n`);

      const sarif = JSON.parse(cli(['check', '--format', 'sarif'], folder)) as {
        runs: { tool: { driver: { rules: { id: string; helpUri: string }[] } } }[];
      };
      expect(sarif.runs[0]!.tool.driver.rules.find((r) => r.id === 'PB200')?.helpUri).toBe(link);

      const service = new PlaybookLanguageService(nodeFileSystem);
      const uri = pathToFileURL(file).href;
      service.openDocument(uri, BAD, 1);
      const lsp = [...service.validate().open.values()].flat();
      expect(lsp.map((d) => [d.code, d.codeDescription?.href])).toEqual([['PB200', link]]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
