/**
 * The built extension: `node vscode-extension/build.mjs --package` runs once here (a few seconds), then
 * the bundles, the bundled server speaking LSP over stdio, the grammars and the .vsix are checked, and the
 * .vsix against the marketplaces' rules (vsix-rules.mjs), each rule shown to fire on a broken copy.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc/node';
import * as oniguruma from 'vscode-oniguruma';
import * as textmate from 'vscode-textmate';
import { SourceText, compilePlaybook } from '@kairoku-playbook/compiler';
import { buildExtension, packageExtension } from '../build.mjs';
import { BUDGET, readVsix, vsixProblems } from '../vsix-rules.mjs';
import type { Vsix } from '../vsix-rules.mjs';
import { tempDir } from '../../test/kit/temp.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const EXTENSION = here('../');
const dist = (name: string) => join(EXTENSION, 'dist', name);
const VSIX = dist('kairoku-playbook.vsix');
const require = createRequire(import.meta.url);

beforeAll(() => {
  execFileSync(process.execPath, [join(EXTENSION, 'build.mjs'), '--package'], { stdio: 'pipe' });
}, 180_000);

describe('the bundles', () => {
  it('are CommonJS files that need nothing but Node (and VS Code for the extension)', () => {
    for (const name of ['extension.js', 'server.js']) {
      const code = readFileSync(dist(name), 'utf8');
      expect(code.startsWith('"use strict";')).toBe(true);
      // (not a require written in a string: Ajv's code generator keeps `require("ajv/dist/runtime/…")` as
      // text for standalone code, which the explorer the server bundles never asks for)
      const required = new Set([...code.matchAll(/(?<!['"`])require\("([^"]+)"\)/g)].map((m) => m[1]!));
      const outside = [...required].filter(
        (m) => !m.startsWith('node:') && !require('node:module').isBuiltin(m),
      );
      expect(outside).toEqual(name === 'extension.js' ? ['vscode'] : []);
    }
  });

  it("the bundled CLI leaves the playground's page out, and its playground command says so (exit 2)", () => {
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [dist('cli.js'), 'playground'], {
        encoding: 'utf8',
        stdio: 'pipe',
        timeout: 30_000, // a page carried would be served until killed
      });
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toContain(
      "does not carry docs/playground/index.html: the VS Code extension's bundled CLI leaves it out",
    );
    expect(readFileSync(dist('cli.js'), 'utf8')).not.toContain('@codemirror/');
  });

  it('the extension loads with a stand-in vscode module and exports activate and deactivate', () => {
    // A child process: the stand-in answers every property with itself.
    const script = `
      const Module = require('node:module');
      const stub = new Proxy(function () {}, {
        get: (t, p) => (p === 'then' ? undefined : stub),
        getPrototypeOf: () => Function.prototype,
        construct: () => stub,
        apply: () => stub,
      });
      const load = Module._load;
      Module._load = function (request, ...rest) {
        return request === 'vscode' ? { __proto__: stub, __esModule: true } : load.call(this, request, ...rest);
      };
      const extension = require(${JSON.stringify(dist('extension.js'))});
      process.stdout.write(JSON.stringify(Object.keys(extension).map((k) => [k, typeof extension[k]])));
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(Object.fromEntries(JSON.parse(out))).toMatchObject({
      activate: 'function',
      deactivate: 'function',
    });
  });
});

describe('the bundled server', () => {
  let child: ChildProcess;
  let connection: MessageConnection;
  interface Published {
    code?: string | number;
    message: string;
    severity?: number;
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
  }
  const published = new Map<string, Published[]>();
  let workspace: string;

  beforeAll(async () => {
    workspace = tempDir('kairoku-vscode-');
    child = spawn(process.execPath, [dist('server.js'), '--stdio', `--clientProcessId=${process.pid}`], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    connection = createMessageConnection(
      new StreamMessageReader(child.stdout!),
      new StreamMessageWriter(child.stdin!),
    );
    connection.onNotification(
      'textDocument/publishDiagnostics',
      (params: { uri: string; diagnostics: Published[] }) => {
        published.set(params.uri, params.diagnostics);
      },
    );
    connection.listen();
  });

  afterAll(async () => {
    if (child.exitCode === null) child.kill();
    connection.dispose();
    rmSync(workspace, { recursive: true, force: true });
  });

  it('answers initialize over stdio with the capabilities the extension relies on', async () => {
    const result = await connection.sendRequest<{
      capabilities: Record<string, unknown> & {
        semanticTokensProvider: { legend: { tokenTypes: string[] } };
      };
      serverInfo: { name: string };
    }>('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(workspace).href,
      workspaceFolders: [{ uri: pathToFileURL(workspace).href, name: 'w' }],
      capabilities: {},
      initializationOptions: { validationDelay: 0 },
    });
    expect(result.serverInfo.name).toBe('kairoku-playbook');
    expect(result.capabilities).toMatchObject({
      completionProvider: expect.anything(),
      hoverProvider: true,
      definitionProvider: true,
      renameProvider: { prepareProvider: true },
      codeActionProvider: expect.anything(),
    });
    expect(result.capabilities.semanticTokensProvider.legend.tokenTypes).toContain('variable');
    await connection.sendNotification('initialized', {});
  });

  it('reports exactly the diagnostics of the compiler', async () => {
    const path = join(workspace, 'playbooks', 'pr.yml');
    const text = readFileSync(here('../../playbooks/pr.yml'), 'utf8').replace('needs: [qa]', 'needs: [qaa]');
    const uri = pathToFileURL(path).href;
    await connection.sendNotification('textDocument/didOpen', {
      textDocument: { uri, languageId: 'kairoku-playbook', version: 1, text },
    });
    const deadline = Date.now() + 10_000;
    while (!published.has(uri) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const source = new SourceText(text);
    const severities = { error: 1, warning: 2, info: 3 };
    const expected = compilePlaybook('playbooks/pr.yml', text).diagnostics.map((d) => ({
      code: d.code,
      message: d.message,
      severity: severities[d.severity],
      range: { start: source.positionAt(d.range.start), end: source.positionAt(d.range.end) },
    }));
    expect(expected.length).toBeGreaterThan(0);
    expect(
      published
        .get(uri)!
        .map((d) => ({ code: d.code, message: d.message, severity: d.severity, range: d.range })),
    ).toEqual(expected);
  });

  it('shuts down cleanly', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await connection.sendRequest('shutdown');
    await connection.sendNotification('exit');
    expect(await exited).toBe(0);
  });
});

describe('the grammars', () => {
  const injectionPath = dist('syntaxes/playbook.injection.tmLanguage.json');

  it('copies the injection grammar of grammar/textmate, selecting the playbook scope too', () => {
    const source = JSON.parse(
      readFileSync(here('../../grammar/textmate/playbook.injection.tmLanguage.json'), 'utf8'),
    );
    const copy = JSON.parse(readFileSync(injectionPath, 'utf8'));
    expect({ ...copy, injectionSelector: source.injectionSelector }).toEqual(source);
    const clauses = copy.injectionSelector.split(',').map((c: string) => c.trim());
    expect(clauses).toContain(source.injectionSelector);
    expect(clauses).toContain(source.injectionSelector.replace('source.yaml', 'source.kairoku-playbook'));
  });

  it('highlights ${{ }} in a playbook (the YAML grammar under the playbook scope) and in plain YAML', async () => {
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const files: Record<string, string> = {
      'source.yaml': here('./fixtures/yaml-stand-in.tmLanguage.json'),
      'source.kairoku-playbook': here('../syntaxes/kairoku-playbook.tmLanguage.json'),
      'source.kairoku-playbook.expression-injection': injectionPath,
    };
    const registry = new textmate.Registry({
      onigLib: Promise.resolve({
        createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
        createOnigString: (text: string) => new oniguruma.OnigString(text),
      }),
      loadGrammar: async (scope) =>
        files[scope] ? textmate.parseRawGrammar(readFileSync(files[scope]!, 'utf8'), files[scope]) : null,
      // What package.json's injectTo says.
      getInjections: (scope) =>
        scope === 'source.kairoku-playbook' || scope === 'source.yaml'
          ? ['source.kairoku-playbook.expression-injection']
          : undefined,
    });
    for (const scope of ['source.kairoku-playbook', 'source.yaml']) {
      const grammar = (await registry.loadGrammar(scope))!;
      const line = 'prompt: "Plan ${{ inputs.task }}" # ${{ not.this }}';
      const tokens = grammar.tokenizeLine(line, textmate.INITIAL).tokens.map((t) => ({
        text: line.slice(t.startIndex, t.endIndex),
        scopes: t.scopes,
      }));
      const scopesOf = (text: string) => tokens.find((t) => t.text === text)?.scopes ?? [];
      expect(scopesOf('prompt')).toEqual([scope, 'entity.name.tag.yaml']);
      expect(scopesOf('${{')).toContain('punctuation.definition.expression.begin.kairoku-playbook');
      expect(scopesOf('${{')).toContain('string.quoted.double.yaml');
      expect(scopesOf('inputs')).toContain('variable.language.kairoku-playbook');
      expect(tokens.find((t) => t.text.includes('not.this'))!.scopes).not.toContain(
        'meta.embedded.expression.kairoku-playbook',
      );
    }
  });
});

describe('the .vsix', () => {
  it('holds the manifest, the bundles and their notices, the panel, the grammars, the language configuration, the icons and the documents', () => {
    expect(existsSync(VSIX)).toBe(true);
    const vsix = readVsix(readFileSync(VSIX));
    expect([...vsix.files.keys()].filter((n) => n.startsWith('extension/')).sort()).toEqual([
      'extension/LICENSE.txt',
      'extension/changelog.md',
      'extension/dist/THIRD-PARTY-NOTICES.txt',
      'extension/dist/cli.js',
      'extension/dist/extension.js',
      'extension/dist/panel/graph.css',
      'extension/dist/panel/graph.js',
      'extension/dist/panel/panel.css',
      'extension/dist/panel/panel.js',
      'extension/dist/server.js',
      'extension/dist/syntaxes/playbook.injection.tmLanguage.json',
      'extension/images/icon.png',
      'extension/images/playbooks.svg',
      'extension/language-configuration.json',
      'extension/package.json',
      'extension/readme.md',
      'extension/syntaxes/kairoku-playbook.tmLanguage.json',
    ]);
    expect(vsix.files.has('extension.vsixmanifest')).toBe(true);
    const manifest = JSON.parse(vsix.files.get('extension/package.json')!.toString('utf8'));
    const source = JSON.parse(readFileSync(join(EXTENSION, 'package.json'), 'utf8'));
    expect(manifest.main).toBe('./dist/extension.js');
    expect(manifest.contributes).toEqual(source.contributes);
    expect(vsix.files.get('extension/dist/server.js')!.equals(readFileSync(dist('server.js')))).toBe(true);
    // The Playbooks view's page is the panel's build, as serve serves it; the graph view's is its graph.
    for (const file of ['panel.js', 'panel.css', 'graph.js', 'graph.css'])
      expect(
        vsix.files
          .get(`extension/dist/panel/${file}`)!
          .equals(readFileSync(join(EXTENSION, '..', 'panel', 'dist', file))),
      ).toBe(true);
    // The bundles hold chevrotain, yaml and vscode-languageclient: their licences travel with them.
    const notices = vsix.files.get('extension/dist/THIRD-PARTY-NOTICES.txt')!.toString('utf8');
    for (const bundled of ['chevrotain', 'yaml', 'vscode-languageclient']) {
      expect(notices).toMatch(new RegExp(`^${bundled} \\S+ \\(`, 'm'));
    }
    expect(vsix.files.get('extension/readme.md')!.equals(readFileSync(join(EXTENSION, 'README.md')))).toBe(
      true,
    );
    expect(vsix.files.get('extension/LICENSE.txt')!.equals(readFileSync(join(EXTENSION, 'LICENSE')))).toBe(
      true,
    );
    // Every grammar the manifest names is in the package.
    for (const grammar of manifest.contributes.grammars as { path: string }[])
      expect(vsix.files.has(`extension/${grammar.path.replace(/^\.\//, '')}`)).toBe(true);
  });

  it('is built from sources only: no workspace package has to be built first (a fresh clone after npm ci)', async () => {
    const { inputs } = await buildExtension();
    expect(inputs.length).toBeGreaterThan(50);
    // (third-party packages may sit in a workspace package's own node_modules: runtime/node_modules/ajv;
    // modules of a plugin's own namespace, such as the stand-ins for Prettier's other plugins, are no files)
    const workspace = inputs.filter((path) => !/(^|\/)node_modules\//.test(path) && !/^[a-z-]+:/.test(path));
    expect(workspace.filter((path) => /(^|\/)dist\//.test(path))).toEqual([]);
    expect(workspace.filter((path) => !/\.(ts|json)$/.test(path))).toEqual([]);
    // The server's sub-path entry (compiler/disk) and the discovery it shares with check: from their sources.
    expect(workspace).toContain('compiler/src/workspace/discovery.ts');
    expect(workspace).toContain('compiler/src/workspace/disk-lister.ts');
    // The CLI the Playbooks view runs `serve` from, with its serve and the embedded panel.
    expect(workspace).toContain('cli/src/commands/serve.ts');
    expect(workspace).toContain('runtime/src/serve/server.ts');
  }, 120_000);
});

describe("the marketplaces' rules", () => {
  const built = () => readVsix(readFileSync(VSIX));
  /** A copy of the built .vsix with one thing changed. */
  function broken(change: (vsix: Vsix, edit: Edit) => void): string[] {
    const vsix = built();
    const edit: Edit = {
      manifest(update) {
        const manifest = JSON.parse(vsix.files.get('extension/package.json')!.toString('utf8'));
        update(manifest);
        vsix.files.set('extension/package.json', Buffer.from(JSON.stringify(manifest)));
      },
      vsixManifest(update) {
        const xml = vsix.files.get('extension.vsixmanifest')!.toString('utf8');
        vsix.files.set('extension.vsixmanifest', Buffer.from(update(xml)));
      },
      readme(text) {
        vsix.files.set('extension/readme.md', Buffer.from(text));
      },
    };
    change(vsix, edit);
    return vsixProblems(vsix);
  }
  interface Edit {
    manifest(update: (manifest: Record<string, unknown> & { contributes: unknown }) => void): void;
    vsixManifest(update: (xml: string) => string): void;
    readme(text: string): void;
  }
  const png = (width: number, height: number) => {
    const bytes = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
    bytes.writeUInt32BE(13, 8);
    bytes.write('IHDR', 12, 'latin1');
    bytes.writeUInt32BE(width, 16);
    bytes.writeUInt32BE(height, 20);
    return bytes;
  };

  it('the built .vsix breaks none of them', () => {
    expect(vsixProblems(built())).toEqual([]);
  });

  it.each<[string, (vsix: Vsix, edit: Edit) => void, RegExp]>([
    [
      'no license in package.json',
      (_, e) => e.manifest((m) => delete m.license),
      /\[openvsx\] .*has no license/,
    ],
    [
      'no LICENSE file',
      (v) => v.files.delete('extension/LICENSE.txt'),
      /Entry not found: extension\/LICENSE.txt/,
    ],
    [
      'a zip extra field',
      (v) => (v.entries[3]!.extraFieldBytes = 4),
      /zip extra field.*potentially malicious/,
    ],
    [
      'a source map',
      (v) => v.files.set('extension/dist/extension.js.map', Buffer.from('{}')),
      /a source map/,
    ],
    [
      'a sourceMappingURL comment',
      (v) =>
        v.files.set('extension/dist/server.js', Buffer.from('x()\n//# sourceMappingURL=server.js.map\n')),
      /points at a source map/,
    ],
    ['a test', (v) => v.files.set('extension/test/build.test.js', Buffer.from('')), /is a test/],
    ['a source file', (v) => v.files.set('extension/src/extension.ts', Buffer.from('')), /a source file/],
    [
      'node_modules',
      (v) => v.files.set('extension/node_modules/a/index.js', Buffer.from('')),
      /node_modules/,
    ],
    ['a dotfile', (v) => v.files.set('extension/.env', Buffer.from('')), /a dotfile/],
    ['a file over the budget', (v) => (v.entries[3]!.size = BUDGET.fileBytes + 1), /over the budget/],
    [
      'a .vsix over the budget',
      (v) => (v.size = BUDGET.vsixBytes + 1),
      /the \.vsix is \d+ bytes, over the budget/,
    ],
    ['no icon', (_, e) => e.manifest((m) => delete m.icon), /\[ours\] no icon/],
    ['an SVG icon', (_, e) => e.manifest((m) => (m.icon = 'images/icon.svg')), /SVGs can't be used as icons/],
    ['a small icon', (v) => v.files.set('extension/images/icon.png', png(64, 64)), /at least 128×128/],
    ['an oblong icon', (v) => v.files.set('extension/images/icon.png', png(256, 128)), /must be square/],
    [
      'an icon that is no PNG',
      (v) => v.files.set('extension/images/icon.png', Buffer.from('GIF89a')),
      /not a PNG/,
    ],
    ['a missing icon', (v) => v.files.delete('extension/images/icon.png'), /Icon Entry not found/],
    [
      'no CHANGELOG',
      (_, e) => e.vsixManifest((x) => x.replace(/<Asset Type="[^"]*Changelog"[^>]*\/>/, '')),
      /no CHANGELOG/,
    ],
    [
      'a relative README link',
      (_, e) => e.readme('See [the reference](../docs/reference.md).'),
      /relative path/,
    ],
    ['a relative README image', (_, e) => e.readme('![graph](images/graph.png)'), /relative path/],
    ['an http README image', (_, e) => e.readme('<img src="http://example.com/a.png">'), /HTTPS source/],
    ['an SVG README image', (_, e) => e.readme('![a](https://example.com/a.svg)'), /SVGs are restricted/],
    ['an SVG tag in the README', (_, e) => e.readme('<svg></svg>'), /SVG tags are not allowed/],
    [
      'an activation event generated from contributes',
      (_, e) => e.manifest((m) => (m.activationEvents = ['onLanguage:kairoku-playbook'])),
      /onLanguage:kairoku-playbook is generated from contributes/,
    ],
    ["'*' activation", (_, e) => e.manifest((m) => (m.activationEvents = ['*'])), /'\*' activation/],
    [
      'an engine before implied activation events, without them',
      (_, e) => e.manifest((m) => (m.engines = { vscode: '^1.60.0' })),
      /VS Code 1\.60 generates no onCommand:kairokuPlaybook\.checkWorkspace/,
    ],
    ['no engine', (_, e) => e.manifest((m) => delete m.engines), /engines\.vscode is missing/],
    [
      'an invalid version',
      (_, e) => e.vsixManifest((x) => x.replace(/Version="0\.1\.0"/, 'Version="latest"')),
      /Invalid version: latest/,
    ],
    [
      'an invalid namespace',
      (_, e) => e.vsixManifest((x) => x.replace('Publisher="kairoku"', 'Publisher="kai roku"')),
      /Invalid namespace name/,
    ],
    [
      'an invalid name',
      (_, e) => e.vsixManifest((x) => x.replace('Id="kairoku-playbook-vscode"', 'Id="a/b"')),
      /Invalid extension name/,
    ],
    [
      'a control character in the description',
      (_, e) => e.vsixManifest((x) => x.replace('Live validation', 'Live\u0007validation')),
      /Invalid character found in field 'description'/,
    ],
    [
      'a description over 2048 characters',
      (_, e) => e.vsixManifest((x) => x.replace('Live validation', 'x'.repeat(2049))),
      /'description' exceeds the current limit of 2048/,
    ],
    [
      'an invalid homepage',
      (_, e) =>
        e.vsixManifest((x) => x.replace(/Links\.Learn" Value="[^"]*"/, 'Links.Learn" Value="https://"')),
      /Invalid URL in field 'homepage'/,
    ],
    [
      'no repository',
      (_, e) =>
        e.vsixManifest((x) =>
          x.replace(/<Property Id="Microsoft\.VisualStudio\.Services\.Links\.Source"[^>]*\/>/, ''),
        ),
      /'repository' field is missing/,
    ],
    [
      'an invalid gallery theme',
      (_, e) => e.manifest((m) => (m.galleryBanner = { theme: 'blue' })),
      /galleryBanner\.theme/,
    ],
    [
      'a missing entry point',
      (v) => v.files.delete('extension/dist/extension.js'),
      /names \.\/dist\/extension\.js, which is not in the package/,
    ],
    [
      'a missing package.json',
      (v) => v.files.delete('extension/package.json'),
      /Entry not found: extension\/package\.json/,
    ],
  ])('fire on %s', (_, change, expected) => {
    const problems = broken(change);
    expect(
      problems.some((p) => expected.test(p)),
      problems.join('\n'),
    ).toBe(true);
  });

  it("vsce's warnings fail the build, and are shown", () => {
    // A copy of the extension without a repository and without a LICENSE: vsce warns twice, exits 0.
    const copy = tempDir('kairoku-vsce-');
    try {
      for (const name of [
        'package.json',
        'dist',
        'syntaxes',
        'images',
        'language-configuration.json',
        'README.md',
        'CHANGELOG.md',
      ])
        cpSync(join(EXTENSION, name), join(copy, name), { recursive: true });
      const manifest = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8'));
      delete manifest.repository;
      manifest.files = manifest.files.filter((f: string) => f !== 'LICENSE');
      writeFileSync(join(copy, 'package.json'), JSON.stringify(manifest));
      let shown = '';
      const vsix = join(copy, 'broken.vsix');
      expect(() => packageExtension({ cwd: copy, vsix, log: (text) => (shown += text) })).toThrow(
        /its warnings fail the build too:\n {2}- A 'repository' field is missing[^\n]*\n[^]*- LICENSE, LICENSE\.md, or LICENSE\.txt not found/,
      );
      expect(shown).toMatch(/WARNING +A 'repository' field is missing/);
      expect(existsSync(vsix)).toBe(false);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
