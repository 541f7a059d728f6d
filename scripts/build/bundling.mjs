// What the CLI's and the VS Code extension's esbuild bundles share: resolving the workspace packages to
// their TypeScript sources, and the licence notices of the third-party packages a bundle contains.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * `@kairoku-playbook/<package>[/<entry>]` → the TypeScript source behind that entry of the package's
 * `exports`: `./dist/<path>.js` is built from `src/<path>.ts` (or `.tsx`, the panel's components). So a bundle needs no `tsc -b` first (a
 * fresh clone builds right after `npm ci`) and never takes a stale or second copy of a module. Entries that
 * are not built (the JSON Schema under `grammar/schema/`) resolve as published: undefined.
 */
export function workspaceSourceOf(specifier) {
  const match = /^@kairoku-playbook\/([^/]+)(?:\/(.+))?$/.exec(specifier);
  if (!match) return undefined;
  const [, name, entry] = match;
  const packageDir = join(root, name);
  if (!existsSync(join(packageDir, 'package.json'))) return undefined;
  const { exports } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const target = exports?.[entry ? `./${entry}` : '.'];
  const built = typeof target === 'string' ? target : target?.default;
  const source = /^\.\/dist\/(.+)\.js$/.exec(built ?? '');
  if (!source) return undefined;
  const path = join(packageDir, 'src', `${source[1]}.ts`);
  if (existsSync(path)) return path;
  if (existsSync(`${path}x`)) return `${path}x`;
  throw new Error(`${specifier}: ${built} has no source ${path}`);
}

/** The esbuild plugin of workspaceSourceOf. */
export const workspaceSources = {
  name: 'workspace-sources',
  setup(builder) {
    builder.onResolve({ filter: /^@kairoku-playbook\// }, (args) => {
      const path = workspaceSourceOf(args.path);
      return path ? { path } : undefined;
    });
  },
};

/**
 * The licence texts of the third-party packages whose code is in a bundle (MIT, ISC and Apache-2.0 ask
 * for them to travel with it), from esbuild's metafile; `product` names what bundles them.
 */
export function thirdPartyNotices(metafile, product) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const path = input.split('/').join(sep);
    const at = path.lastIndexOf(`node_modules${sep}`);
    if (at < 0) continue;
    const rest = path.slice(at + `node_modules${sep}`.length).split(sep);
    const nameParts = rest[0].startsWith('@') ? rest.slice(0, 2) : rest.slice(0, 1);
    const dir = join(root, path.slice(0, at), 'node_modules', ...nameParts);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const title = `${manifest.name} ${manifest.version} (${manifest.license ?? 'see below'})`;
    if (manifest.name?.startsWith('@kairoku-playbook/') || packages.has(title)) continue;
    const licenceFile = readdirSync(dir).find((name) => /^licen[cs]e(\.md|\.txt)?$/i.test(name));
    packages.set(title, {
      title,
      text: licenceFile
        ? readFileSync(join(dir, licenceFile), 'utf8').trim()
        : `No licence file in the package; its package.json says: ${manifest.license}.`,
    });
  }
  const sorted = [...packages.values()].sort((a, b) => a.title.localeCompare(b.title));
  return (
    `${product} bundles the following packages. Their licences follow.\n\n` +
    sorted.map(({ title, text }) => `${'='.repeat(78)}\n${title}\n${'='.repeat(78)}\n\n${text}\n`).join('\n')
  );
}

/**
 * Prettier in a bundle: the language server and `format` use its YAML printer (`prettier/standalone`,
 * `prettier/plugins/yaml`) and its config resolution (`prettier`'s `resolveConfig`). Its Node entry
 * imports every other language's plugin on demand; those are never asked for (the parser is always
 * `yaml`), so each is a stub that says so rather than megabytes of parsers. Its `import.meta.url` (a
 * CommonJS bundle has none) becomes the bundle's own URL. Both stand-ins are modules of their own
 * namespace (`prettier-bundling:`), not files.
 */
export const prettierBundling = {
  name: 'prettier-bundling',
  setup(builder) {
    const inPrettier = (path) => /[\\/]node_modules[\\/]prettier[\\/]/.test(path);
    builder.onResolve({ filter: /^\.\/plugins\// }, (args) =>
      inPrettier(args.importer) && !/^\.\/plugins\/yaml\.m?js$/.test(args.path)
        ? { path: args.path, namespace: 'prettier-bundling' }
        : undefined,
    );
    builder.onResolve({ filter: /^prettier-bundling:bundle-url$/ }, () => ({
      path: 'bundle-url',
      namespace: 'prettier-bundling',
    }));
    builder.onLoad({ filter: /.*/, namespace: 'prettier-bundling' }, (args) => ({
      contents:
        args.path === 'bundle-url'
          ? // (a module of its own: `require` and `__filename` here are the bundle's, which Prettier's
            // own top-level names do not shadow)
            'export const bundleUrl = require("node:url").pathToFileURL(__filename).href;'
          : `throw new Error(${JSON.stringify(`Prettier's ${args.path} is not bundled: only YAML is formatted here`)});`,
      loader: 'js',
    }));
    builder.onLoad({ filter: /[\\/]node_modules[\\/]prettier[\\/]index\.mjs$/ }, (args) => ({
      contents:
        'import { bundleUrl as __kairokuBundleUrl } from "prettier-bundling:bundle-url";\n' +
        readFileSync(args.path, 'utf8').replaceAll('import.meta.url', '__kairokuBundleUrl'),
      loader: 'js',
      resolveDir: dirname(args.path),
    }));
  },
};
