import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PlaybookLanguageService, TOKEN_TYPES } from '@kairoku-playbook/lsp';
import {
  COMMANDS,
  DEFAULT_VALIDATION_DELAY,
  LANGUAGE_ID,
  PLAYBOOKS_CONTAINER_ID,
  PLAYBOOKS_VIEW_ID,
  SETTINGS,
} from '../src/manifest.js';
import { PLAYBOOK_FILENAME_PATTERNS } from '../src/playbook-files.js';
import { impliedActivationEvents, markdownLinks, minimumEngine, pngSize } from '../vsix-rules.mjs';

const require = createRequire(import.meta.url);

const extension = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const manifest = JSON.parse(readFileSync(extension('package.json'), 'utf8'));
const contributes = manifest.contributes;

interface Language {
  id: string;
  aliases?: string[];
  filenamePatterns?: string[];
  configuration?: string;
}
interface Grammar {
  language?: string;
  scopeName: string;
  path: string;
  injectTo?: string[];
}

const language = (contributes.languages as Language[]).find((l) => l.id === LANGUAGE_ID)!;

describe('package.json', () => {
  it('is a VS Code extension for 1.91 whose entry is the bundle', () => {
    expect(manifest.name).toBe('kairoku-playbook-vscode');
    expect(manifest.publisher).toBe('kairoku');
    expect(manifest.engines.vscode).toBe('^1.91.0');
    expect(manifest.main).toBe('./dist/extension.js');
    // Everything is bundled: nothing to install beside the extension.
    expect(manifest.dependencies ?? {}).toEqual({});
  });

  it('declares the kairoku-playbook language for the files check discovers', () => {
    expect(language.aliases?.[0]).toBe('Kairoku Playbook');
    expect(language.filenamePatterns).toEqual([...PLAYBOOK_FILENAME_PATTERNS]);
    expect(language.filenamePatterns).toEqual([
      '**/*.playbook.yml',
      '**/*.playbook.yaml',
      '**/playbooks/*.yml',
      '**/playbooks/*.yaml',
    ]);
  });

  it('keeps playbook tests in playbooks/ as YAML (a longer pattern wins in VS Code)', () => {
    const yaml = (contributes.languages as Language[]).find((l) => l.id === 'yaml')!;
    expect(yaml.filenamePatterns).toEqual(['**/playbooks/*.test.yml', '**/playbooks/*.test.yaml']);
    // Each is longer than the playbook pattern that also matches its files.
    yaml.filenamePatterns!.forEach((pattern, i) => {
      const playbook = language.filenamePatterns![2 + i]!;
      expect(pattern.replace('.test', '')).toBe(playbook);
      expect(pattern.length).toBeGreaterThan(playbook.length);
    });
  });

  it('has a YAML language configuration: # comments, brackets, indentation rules', () => {
    const path = extension(language.configuration!);
    expect(existsSync(path)).toBe(true);
    const configuration = JSON.parse(readFileSync(path, 'utf8'));
    expect(configuration.comments).toEqual({ lineComment: '#' });
    expect(configuration.brackets).toEqual([
      ['{', '}'],
      ['[', ']'],
      ['(', ')'],
    ]);
    const increase = new RegExp(configuration.indentationRules.increaseIndentPattern);
    expect(increase.test('steps:')).toBe(true);
    expect(increase.test('  - name: plan')).toBe(false);
    expect(increase.test('  -')).toBe(true);
    expect(new RegExp(configuration.indentationRules.decreaseIndentPattern).test('  }')).toBe(true);
    expect(configuration.folding.offSide).toBe(true);
    const word = new RegExp(configuration.wordPattern, 'g');
    expect('${{ steps.prior-art.outputs }}'.match(word)).toEqual(['steps', 'prior-art', 'outputs']);
  });

  it('gives the language a grammar that is YAML, and injects expressions into it and into YAML', () => {
    const grammars = contributes.grammars as Grammar[];
    const base = grammars.find((g) => g.language === LANGUAGE_ID)!;
    expect(base.scopeName).toBe('source.kairoku-playbook');
    const baseGrammar = JSON.parse(readFileSync(extension(base.path), 'utf8'));
    expect(baseGrammar.scopeName).toBe(base.scopeName);
    expect(baseGrammar.patterns).toEqual([{ include: 'source.yaml' }]);

    const injection = grammars.find((g) => g.injectTo)!;
    expect(injection.scopeName).toBe('source.kairoku-playbook.expression-injection');
    expect(injection.injectTo).toEqual(['source.kairoku-playbook', 'source.yaml']);
    // Copied there by build.mjs (build.test.ts checks the copy); its source:
    expect(injection.path).toBe('./dist/syntaxes/playbook.injection.tmLanguage.json');
    const source = JSON.parse(
      readFileSync(extension('../grammar/textmate/playbook.injection.tmLanguage.json'), 'utf8'),
    );
    expect(source.scopeName).toBe(injection.scopeName);
  });

  it('maps every semantic token type of the server to a TextMate scope', () => {
    const scopes = contributes.semanticTokenScopes[0];
    expect(scopes.language).toBe(LANGUAGE_ID);
    const mapped = Object.keys(scopes.scopes).map((selector) => selector.split('.')[0]);
    for (const type of TOKEN_TYPES) expect(mapped).toContain(type);
  });

  it('declares the commands, with their titles, and activates on them and on the language (implied)', () => {
    const commands = contributes.commands as { command: string; title: string; category: string }[];
    const titles = Object.fromEntries(commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
    expect(titles).toEqual({
      [COMMANDS.checkWorkspace]: 'Kairoku Playbooks: Check workspace',
      [COMMANDS.showGraph]: 'Kairoku Playbooks: Show playbook graph',
      [COMMANDS.restartServer]: 'Kairoku Playbooks: Restart language server',
      [COMMANDS.runPlaybook]: 'Kairoku Playbooks: Run playbook',
      [COMMANDS.openRun]: 'Kairoku Playbooks: Open run in the Playbooks view',
    });
    // VS Code ≥ 1.74 generates these from `contributes` (a language with a configuration, every command);
    // declaring them again is noise, so none are declared.
    expect(manifest.activationEvents).toBeUndefined();
    expect(minimumEngine(manifest.engines.vscode)).toMatchObject({ major: 1 });
    expect(minimumEngine(manifest.engines.vscode)!.minor).toBeGreaterThanOrEqual(74);
    expect(impliedActivationEvents(manifest).sort()).toEqual(
      [
        `onLanguage:${LANGUAGE_ID}`,
        ...Object.values(COMMANDS).map((command) => `onCommand:${command}`),
      ].sort(),
    );
    const title = contributes.menus['editor/title'][0];
    expect(title).toMatchObject({ command: COMMANDS.showGraph, when: `editorLangId == ${LANGUAGE_ID}` });
    expect(contributes.menus['editor/title'][1]).toMatchObject({
      command: COMMANDS.runPlaybook,
      when: `editorLangId == ${LANGUAGE_ID} && resourceScheme == file`,
    });
    // Open run takes a run's id: only the graph view's link runs it.
    expect(contributes.menus.commandPalette).toContainEqual({ command: COMMANDS.openRun, when: 'false' });
  });

  it('contributes the Playbooks view: a webview view in its own activity bar container', () => {
    expect(contributes.viewsContainers.activitybar).toEqual([
      { id: PLAYBOOKS_CONTAINER_ID, title: 'Playbooks', icon: 'images/playbooks.svg' },
    ]);
    expect(contributes.views[PLAYBOOKS_CONTAINER_ID]).toEqual([
      { type: 'webview', id: PLAYBOOKS_VIEW_ID, name: 'Playbooks', contextualTitle: 'Kairoku Playbooks' },
    ]);
    expect(readFileSync(extension('images/playbooks.svg'), 'utf8')).toMatch(/^<svg [^>]*viewBox="0 0 24 24"/);
    // VS Code ≥ 1.74 activates on a contributed view by itself (onView), so nothing is declared.
    expect(manifest.activationEvents).toBeUndefined();
  });

  it('runs no workspace-chosen server in Restricted Mode', () => {
    expect(manifest.capabilities.untrustedWorkspaces).toMatchObject({
      supported: 'limited',
      restrictedConfigurations: [SETTINGS.serverPath],
    });
    expect(manifest.capabilities.virtualWorkspaces.supported).toBe(false);
  });

  it('declares the settings the code reads', () => {
    const properties = contributes.configuration.properties;
    expect(Object.keys(properties).sort()).toEqual(Object.values(SETTINGS).sort());
    expect(properties[SETTINGS.serverPath]).toMatchObject({ type: 'string', default: '' });
    expect(properties[SETTINGS.validationDelay]).toMatchObject({
      type: 'integer',
      default: DEFAULT_VALIDATION_DELAY,
      minimum: 0,
    });
    expect(properties[SETTINGS.explore]).toMatchObject({ type: 'boolean', default: true });
    expect(properties[SETTINGS.traceServer].enum).toEqual(['off', 'messages', 'verbose']);
    expect(contributes.configurationDefaults[`[${LANGUAGE_ID}]`]['editor.wordBasedSuggestions']).toBe('off');
  });

  it('packages only the bundles and their notices, the panel, the grammars, the language configuration, the icons and the documents', () => {
    expect(manifest.files).toEqual([
      'dist/extension.js',
      'dist/server.js',
      'dist/cli.js',
      'dist/panel/panel.js',
      'dist/panel/panel.css',
      'dist/panel/graph.js',
      'dist/panel/graph.css',
      'dist/THIRD-PARTY-NOTICES.txt',
      'dist/syntaxes/*.json',
      'syntaxes/*.json',
      'language-configuration.json',
      'images/icon.png',
      'images/playbooks.svg',
      'README.md',
      'CHANGELOG.md',
      'LICENSE',
    ]);
    // vsce refuses a .vscodeignore next to `files`.
    expect(existsSync(extension('.vscodeignore'))).toBe(false);
    // Everything is bundled: vsce lists no dependencies (and needs no network), also when run by hand.
    expect(manifest.vsce).toEqual({ dependencies: false });
  });
});

describe('the marketplace listing', () => {
  const REPOSITORY = 'https://github.com/kairoku/kairoku-playbook';

  it('names the repository, the issues and the extension page', () => {
    expect(manifest.repository).toEqual({
      type: 'git',
      url: `${REPOSITORY}.git`,
      directory: 'vscode-extension',
    });
    expect(manifest.bugs).toEqual({ url: `${REPOSITORY}/issues` });
    expect(manifest.homepage).toBe(`${REPOSITORY}/tree/main/vscode-extension#readme`);
    expect(manifest.pricing).toBe('Free');
  });

  it('is Apache-2.0-licensed like the whole project, with the license text beside it', () => {
    expect(manifest.license).toBe('Apache-2.0');
    const license = readFileSync(extension('LICENSE'), 'utf8');
    expect(license).toBe(readFileSync(extension('../LICENSE'), 'utf8'));
    expect(license).toContain('Apache License\n                           Version 2.0, January 2004');
    // Kept out of npm: the extension ships as a .vsix, never as an npm package. No marketplace reads it.
    expect(manifest.private).toBe(true);
  });

  it('has a square PNG icon of at least 128 px, rendered from its SVG', () => {
    expect(manifest.icon).toBe('images/icon.png');
    const size = pngSize(readFileSync(extension(manifest.icon)));
    expect(size).toEqual({ width: 256, height: 256 });
    expect(existsSync(extension('images/icon.svg'))).toBe(true);
    expect(readFileSync(extension('images/icon.svg'), 'utf8')).toMatch(/<svg [^>]*viewBox="0 0 256 256"/);
  });

  it('lists marketplace categories and keywords', () => {
    // Categories of VS Code's extension manifest schema (the marketplaces file extensions under them).
    const categories = [
      'Azure',
      'Data Science',
      'Debuggers',
      'Education',
      'Extension Packs',
      'Formatters',
      'Keymaps',
      'Language Packs',
      'Linters',
      'Machine Learning',
      'Notebooks',
      'Other',
      'Programming Languages',
      'SCM Providers',
      'Snippets',
      'Testing',
      'Themes',
      'Visualization',
    ];
    expect(manifest.categories.filter((c: string) => !categories.includes(c))).toEqual([]);
    expect(manifest.categories).toEqual(['Programming Languages', 'Linters', 'Visualization']);
    expect(manifest.keywords.length).toBeGreaterThan(3);
    expect(manifest.displayName).toBe('Kairoku Playbooks');
  });

  it('needs no VS Code API newer than engines.vscode (the typings it is built against are that version)', () => {
    const types = JSON.parse(readFileSync(require.resolve('@types/vscode/package.json'), 'utf8'));
    const [major, minor] = types.version.split('.').map(Number);
    expect({ major, minor }).toEqual(minimumEngine(manifest.engines.vscode));
  });

  it('has a changelog with a section for this version', () => {
    const changelog = readFileSync(extension('CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(new RegExp(`^## \\[${manifest.version.replace(/\./g, '\\.')}\\]`, 'm'));
  });

  it('has a README that stands alone on a marketplace page: every link absolute, every section there', () => {
    const readme = readFileSync(extension('README.md'), 'utf8');
    const relative = markdownLinks(readme).filter(({ target }) => !/^(https:|#)/.test(target));
    expect(relative).toEqual([]);
    for (const section of ['Features', 'Requirements', 'Install', 'Commands', 'Settings', 'License'])
      expect(readme).toMatch(new RegExp(`^## ${section}$`, 'm'));
    // Every command and setting of the manifest is documented.
    for (const command of contributes.commands as { title: string; category: string }[])
      expect(readme).toContain(`**${command.category}: ${command.title}**`);
    for (const setting of Object.keys(contributes.configuration.properties))
      expect(readme).toContain(`\`${setting}\``);
  });

  it('links only to files and headings of this repository that exist (on main, once merged)', () => {
    const readme = readFileSync(extension('README.md'), 'utf8');
    const changelog = readFileSync(extension('CHANGELOG.md'), 'utf8');
    const ours = [...markdownLinks(readme), ...markdownLinks(changelog)]
      .map(({ target }) =>
        /^https:\/\/(?:github\.com\/kairoku\/kairoku-playbook\/(?:blob|tree)|raw\.githubusercontent\.com\/kairoku\/kairoku-playbook)\/main\/([^#]*)(?:#(.*))?$/.exec(
          target,
        ),
      )
      .filter((match) => match !== null);
    expect(ours.length).toBeGreaterThan(5);
    for (const [target, path, anchor] of ours) {
      const file = extension(`../${path}`);
      expect([target, existsSync(file)]).toEqual([target, true]);
      if (!anchor || anchor === 'readme') continue;
      const text = readFileSync(file, 'utf8');
      // GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens; or an explicit <a id>.
      const headings = [...text.matchAll(/^#+ (.*)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\p{L}\p{N} _-]/gu, '')
          .replace(/ /g, '-'),
      );
      const ids = [...text.matchAll(/<a id="([^"]+)"/g)].map((m) => m[1]);
      expect([target, [...headings, ...ids].includes(anchor)]).toEqual([target, true]);
    }
  });
});

describe('playbook files', () => {
  const paths = [
    'playbooks/pr.yml',
    'playbooks/pr.yaml',
    'playbooks/pr.test.yml',
    'playbooks/nested/pr.yml',
    '.kairoku/playbooks/release.yml',
    '.paseo/playbooks/release.YAML',
    'deploy.playbook.yml',
    'a/b/deploy.playbook.yaml',
    'a/b/deploy.playbook.test.yaml',
    'ci.yml',
    'playbooks/readme.md',
    'C:\\work\\playbooks\\pr.yml',
    'myplaybooks/pr.yml',
  ];

  it('are those the server keeps of the files the extension finds (Check workspace asks it)', () => {
    const service = new PlaybookLanguageService({
      readFile: () => ({ problem: 'missing', message: 'no such file' }),
      readDirectory: () => [],
    });
    const uris = paths.map((path) => pathToFileURL(path).href);
    const kept = service.playbookFiles(uris).map((uri) => paths[uris.indexOf(uri)]);
    expect(kept).toEqual([
      'playbooks/pr.yml',
      'playbooks/pr.yaml',
      '.kairoku/playbooks/release.yml',
      '.paseo/playbooks/release.YAML',
      'deploy.playbook.yml',
      'a/b/deploy.playbook.yaml',
      'C:\\work\\playbooks\\pr.yml',
    ]);
  });
});

describe('a file in a bare playbooks/ folder (SPEC §2)', () => {
  it('is the one whose language the server decides from its content (an Ansible playbook stays YAML)', async () => {
    const { inBarePlaybooksFolder } = await import('../src/playbook-files.js');
    expect(inBarePlaybooksFolder('/w/playbooks/site.yml')).toBe(true);
    expect(inBarePlaybooksFolder('C:\\w\\playbooks\\site.yaml')).toBe(true);
    expect(inBarePlaybooksFolder('/w/playbooks/pr.playbook.yml')).toBe(false);
    expect(inBarePlaybooksFolder('/w/playbooks/pr.test.yml')).toBe(false);
    expect(inBarePlaybooksFolder('/w/.kairoku/playbooks/pr.yml')).toBe(false);
    expect(inBarePlaybooksFolder('/w/.paseo/playbooks/pr.yml')).toBe(false);
    expect(inBarePlaybooksFolder('/w/ci/pr.yml')).toBe(false);
    // the server's rule for the same paths: ours when the top level is a mapping
    const service = new PlaybookLanguageService({
      readFile: () => ({ problem: 'missing', message: 'no such file' }),
      readDirectory: () => [],
    });
    service.openDocument('file:///w/playbooks/site.yml', '- hosts: all\n  tasks: []\n', 1);
    service.openDocument('file:///w/playbooks/pr.yml', 'version: 1\n', 1);
    expect(service.playbookFiles(['file:///w/playbooks/site.yml', 'file:///w/playbooks/pr.yml'])).toEqual([
      'file:///w/playbooks/pr.yml',
    ]);
  });
});
