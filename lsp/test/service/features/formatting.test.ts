/**
 * Formatting (textDocument/formatting and rangeFormatting): Prettier's YAML printer with the options the
 * server resolves, comments and line endings kept, a YAML error never touched, minimal edits.
 */
import { describe, expect, it } from 'vitest';
import { analyzeFile } from '@kairoku-playbook/compiler';
import {
  formatPlaybook,
  formatYaml,
  formattingEdits,
  sameMeaning,
} from '../../../src/service/features/formatting.js';
import { PlaybookLanguageService } from '../../../src/service/language-service.js';
import { memoryFs } from '../../support/memory-fs.js';

const MESSY = `version:   1
title:    "Fix it"   # the card's title
steps:
  plan:
      role: planner
      # what the planner is asked
      prompt:   'Plan: \${{ inputs.task }}'
      outputs: { plan: string,   risks:   list<string> }
inputs:
  task: {type: string}
`;

const FORMATTED = `version: 1
title: "Fix it" # the card's title
steps:
  plan:
    role: planner
    # what the planner is asked
    prompt: "Plan: \${{ inputs.task }}"
    outputs: { plan: string, risks: list<string> }
inputs:
  task: { type: string }
`;

const format = async (text: string, options: Record<string, unknown> | null = null) => {
  const result = await formatPlaybook(analyzeFile('pr.yml', text), options);
  if ('refused' in result) throw new Error(result.refused);
  return result.text;
};

describe('formatting a playbook', () => {
  it("is Prettier's YAML printer: layout made regular, comments kept", async () => {
    expect(await format(MESSY)).toBe(FORMATTED);
    expect(await format(FORMATTED)).toBe(FORMATTED);
  });

  it("takes the project's options (as the server resolves them)", async () => {
    const text = await format(MESSY, {
      singleQuote: true,
      bracketSpacing: false,
      parser: 'babel',
      plugins: ['x'],
    });
    expect(text).toContain("title: 'Fix it' # the card's title");
    expect(text).toContain('task: {type: string}');
  });

  it('keeps CRLF line endings and a byte order mark, unless the config names an endOfLine', async () => {
    const crlf = MESSY.replace(/\n/g, '\r\n');
    expect(await format(crlf)).toBe(FORMATTED.replace(/\n/g, '\r\n'));
    expect(await format(crlf, { endOfLine: 'lf' })).toBe(FORMATTED);
    const bom = await formatYaml(`\ufeff${MESSY}`);
    expect(bom).toEqual({ text: `\ufeff${FORMATTED}` });
  });

  it('formats a file with CR-only line endings (YAML breaks lines at a lone CR) and keeps them', async () => {
    const cr = MESSY.replace(/\n/g, '\r');
    expect(await format(cr)).toBe(FORMATTED.replace(/\n/g, '\r'));
    expect(await format(cr, { endOfLine: 'lf' })).toBe(FORMATTED);
  });

  it('never touches a file with a YAML error, and says where it is', async () => {
    const broken = `${MESSY}  more: [\n`;
    const result = await formatPlaybook(analyzeFile('pr.yml', broken));
    expect(result).toEqual({
      refused: expect.stringMatching(
        /^not formatted: line 11, column \d+ has a YAML error \(.*\); fix it first$/,
      ),
    });
    expect(await formatYaml('a: [\n')).toEqual({
      refused: expect.stringMatching(/^not formatted: line 2, column 1 has a YAML error/),
    });
  });

  it('refuses what would change the diagnostics: a # playbook-ignore comment moved off its line', async () => {
    const text = `version: 1
title: T
inputs:
  legacy: { type: string, required: false } # playbook-ignore PB900 read later
steps:
  only:
    run: make
`;
    expect(await format(text)).toBe(text);
    const narrow = await formatPlaybook(analyzeFile('t.yml', text), { printWidth: 30 });
    expect(narrow).toEqual({ refused: expect.stringContaining('other diagnostics (none → PB900, PB903)') });
  });

  it('compares values, not text, for "the same meaning"', () => {
    expect(sameMeaning('a: [1, 2]\n', 'a:\n  - 1\n  - 2\n')).toBe(true);
    expect(sameMeaning('a: >\n  x\n  y\n', 'a: "x y\\n"\n')).toBe(true);
    expect(sameMeaning('a: 1\n', 'a: "1"\n')).toBe(false);
    expect(sameMeaning('a: &x [1]\nb: *x\n', 'a: [1]\nb: [1]\n')).toBe(true);
  });
});

describe('the edits', () => {
  it('replace only the lines that changed, and only those of a range', () => {
    const before = 'a:   1\nb: 2\nc:   3\nd: 4\n';
    const after = 'a: 1\nb: 2\nc: 3\nd: 4\n';
    expect(formattingEdits(before, after)).toEqual([
      { range: { start: 0, end: 7 }, newText: 'a: 1\n' },
      { range: { start: 12, end: 19 }, newText: 'c: 3\n' },
    ]);
    expect(formattingEdits(before, after, { first: 2, last: 3 })).toEqual([
      { range: { start: 12, end: 19 }, newText: 'c: 3\n' },
    ]);
    expect(formattingEdits(after, after)).toEqual([]);
    expect(formattingEdits('a: 1', 'a: 1\n')).toEqual([{ range: { start: 0, end: 4 }, newText: 'a: 1\n' }]);
  });

  it('applied, give the formatted text', () => {
    const edits = formattingEdits(MESSY, FORMATTED);
    let text = MESSY;
    for (const edit of [...edits].reverse())
      text = text.slice(0, edit.range.start) + edit.newText + text.slice(edit.range.end);
    expect(text).toBe(FORMATTED);
    expect(edits.length).toBeGreaterThan(1);
  });
});

describe('the service', () => {
  const service = () => {
    const language = new PlaybookLanguageService(memoryFs({}));
    language.openDocument('file:///w/playbooks/pr.yml', MESSY, 1);
    return language;
  };

  it('answers formatting with LSP text edits, and range formatting with those of the range', async () => {
    const language = service();
    const all = await language.formatting('file:///w/playbooks/pr.yml', null);
    expect(Array.isArray(all) && all.length).toBeGreaterThan(1);
    const range = await language.formatting('file:///w/playbooks/pr.yml', null, {
      start: { line: 1, character: 0 },
      end: { line: 2, character: 0 },
    });
    expect(range).toEqual([
      {
        range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } },
        newText: 'title: "Fix it" # the card\'s title\n',
      },
    ]);
  });

  it('formats nothing that is not an open playbook (an Ansible playbook in playbooks/, a closed file)', async () => {
    const language = service();
    language.openDocument('file:///w/playbooks/site.yml', '- hosts:   all\n', 1);
    expect(await language.formatting('file:///w/playbooks/site.yml', null)).toEqual([]);
    expect(await language.formatting('file:///w/playbooks/closed.yml', null)).toEqual([]);
  });

  it('refuses a document with a YAML error', async () => {
    const language = service();
    language.changeDocument('file:///w/playbooks/pr.yml', `${MESSY}x: [\n`, 2);
    expect(await language.formatting('file:///w/playbooks/pr.yml', null)).toEqual({
      refused: expect.stringMatching(/^not formatted: line 11/),
    });
  });
});
