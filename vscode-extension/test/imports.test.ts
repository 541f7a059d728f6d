/**
 * The extension talks to the language server and knows nothing of playbooks itself: its sources import
 * none of the playbook packages (`@kairoku-playbook/*`) and nothing outside `vscode-extension/src`, so
 * the graph view, Check workspace and the diagnostics all come from the one compiler inside the server.
 * Three exceptions, each importing nothing of ours: the panel's graph layout
 * (`@kairoku-playbook/panel/layout`), pure geometry shared so the panel, the graph view and `graph` draw
 * one layout; the Playbooks view's message lists (`@kairoku-playbook/panel/webview-transport`), so the
 * page and the extension host speak one protocol; and `@kairoku-playbook/protocol`, the types and method
 * names of what the server and serve answer (the graph, serve's API), with no code of a playbook in it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { workspaceSources } from '../../scripts/build/bundling.mjs';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const src = join(root, 'vscode-extension', 'src');
const SHARED = [
  '@kairoku-playbook/panel/layout',
  '@kairoku-playbook/panel/webview-transport',
  '@kairoku-playbook/protocol',
];
const layoutSrc = join(root, 'panel', 'src', 'layout');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Every module a file names: imports, re-exports, type imports, `import()` and `require`. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

describe('the extension imports', () => {
  it('none of the playbook packages, and nothing outside its sources, in any source file', () => {
    const files = sources(src);
    expect(files.length).toBeGreaterThan(5);
    const found: string[] = [];
    for (const file of files) {
      for (const specifier of importsOf(file)) {
        const outside = specifier.startsWith('.') && !resolve(dirname(file), specifier).startsWith(src + sep);
        if ((specifier.startsWith('@kairoku-playbook/') && !SHARED.includes(specifier)) || outside)
          found.push(`${relative(root, file)} imports ${specifier}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('a shared layout that itself imports nothing but its own files', () => {
    const files = sources(layoutSrc);
    expect(files.length).toBeGreaterThan(1);
    const found = files.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !specifier.startsWith('./'))
        .map((specifier) => `${relative(root, file)} imports ${specifier}`),
    );
    expect(found).toEqual([]);
  });

  it('nothing but its sources and third-party packages into its bundle', async () => {
    const result = await build({
      entryPoints: [join(src, 'extension.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: root,
      external: ['vscode'],
      plugins: [workspaceSources],
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs).toContain('vscode-extension/src/graph-panel.ts');
    const ours = inputs.filter((path) => !path.startsWith('node_modules/'));
    expect(
      ours.filter(
        (path) =>
          !path.startsWith('vscode-extension/src/') &&
          !path.startsWith('panel/src/layout/') &&
          path !== 'panel/src/page/webview-transport.ts' &&
          !path.startsWith('protocol/src/'),
      ),
    ).toEqual([]);
    expect(inputs.filter((path) => path.startsWith('node_modules/@kairoku-playbook/'))).toEqual([]);
  }, 60_000);
});
