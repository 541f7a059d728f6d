// The rules a .vsix must pass to be published on Open VSX and the Visual Studio Marketplace, checked on the
// built file itself (build.mjs --package runs them; test/vsix-rules.test.ts proves each one fires).
//
// Neither marketplace offers an offline check: `ovsx publish <file>` uploads the file and the registry
// validates it, and `vsce` checks while it packages (build.mjs fails on its warnings). So the registry's
// checks are restated here from their sources:
//
//   [openvsx]  eclipse/openvsx, server/src/main/java/org/eclipse/openvsx/: ExtensionProcessor (which entries
//              are read, and a zip entry with an extra field rejects the file as potentially malicious),
//              publish/PublishExtensionVersionHandler (a license is required on open-vsx.org),
//              ExtensionValidator (name, version and metadata rules), entities/SemanticVersion,
//              util/ArchiveUtil (32 MB per entry read), ExtensionService (512 MB per file),
//              scanning/ExtensionScanConfig (50,000 entries, 512 MB uncompressed).
//   [ovsx]     eclipse/openvsx, cli/src/util.ts validateManifest and cli/src/check-license.ts (publisher,
//              name and version required; a license or a LICENSE file).
//   [vsce]     @vscode/vsce 3, out/package.js and out/validation.js: names, engines, icon not an SVG,
//              README images over https and not SVG, no `*` activation.
//   [vscode]   VS Code ≥ 1.74 generates onCommand / onLanguage activation events from `contributes`
//              (languages: those with a `configuration`), so declaring them again is noise.
//   [market]   the Visual Studio Marketplace's extension manifest reference: an icon of at least 128×128 px.
//   [ours]     what should never ship: source maps, tests, sources, node_modules, dotfiles; and size budgets.
import { inflateRawSync } from 'node:zlib';

/**
 * Our budgets (the registries' limits are hundreds of MB): a bundled extension stays small. A file's was
 * 3 MiB until the bundled CLI (dist/cli.js, minified) passed it by 3 KB with `test --coverage` and the
 * coverage hints (about 12 KB): 3.25 MiB leaves it room without letting the bundle double unseen.
 */
export const BUDGET = { vsixBytes: 2 * 1024 * 1024, fileBytes: 3.25 * 1024 * 1024 };

const MB = 1024 * 1024;
const OPENVSX = {
  maxEntryBytes: 32 * MB,
  maxContentBytes: 512 * MB,
  maxUncompressedBytes: 512 * MB,
  maxEntries: 50_000,
  stringSize: 255,
  descriptionSize: 2048,
  galleryColorSize: 16,
};
const OPENVSX_NAME = /^[\w\-+$~]+$/;
const VSCE_NAME = /^[a-z0-9][a-z0-9-]*$/i;
// entities/SemanticVersion.VERSION_PARSE_PATTERN
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A .vsix (a zip) read whole: its size, every entry as stored (sizes, extra fields) and every file's bytes.
 * Only what vsce writes is supported: no zip64, stored or deflated entries.
 */
export function readVsix(zip) {
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== 0x06054b50) end--;
  if (end < 0) throw new Error('not a zip file: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = [];
  const files = new Map();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory entry');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const centralExtra = zip.readUInt16LE(at + 30);
    const offset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (zip.readUInt32LE(offset) !== 0x04034b50) throw new Error(`${name}: bad local header`);
    const localExtra = zip.readUInt16LE(offset + 28);
    const start = offset + 30 + zip.readUInt16LE(offset + 26) + localExtra;
    const data = zip.subarray(start, start + compressedSize);
    entries.push({ name, method, compressedSize, size, extraFieldBytes: centralExtra + localExtra });
    if (!name.endsWith('/')) files.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + centralExtra + zip.readUInt16LE(at + 32);
  }
  return { size: zip.length, entries, files };
}

const unescapeXml = (text) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** The parts of extension.vsixmanifest (written by vsce) that the registries read. */
export function parseVsixManifest(xml) {
  const element = (name) => {
    const match = new RegExp(`<${name}(?:\\s[^>]*)?>([^<]*)</${name}>`).exec(xml);
    return match ? unescapeXml(match[1]) : undefined;
  };
  const identity = /<Identity\s([^>]*)\/>/.exec(xml)?.[1] ?? '';
  const attributes = (text) =>
    Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], unescapeXml(m[2])]));
  const properties = Object.fromEntries(
    [...xml.matchAll(/<Property\s([^>]*)\/>/g)].map((m) => {
      const { Id, Value } = attributes(m[1]);
      return [Id, Value];
    }),
  );
  const assets = Object.fromEntries(
    [...xml.matchAll(/<Asset\s([^>]*)\/>/g)].map((m) => {
      const { Type, Path } = attributes(m[1]);
      return [Type, Path];
    }),
  );
  return {
    identity: attributes(identity),
    displayName: element('DisplayName'),
    description: element('Description'),
    tags: element('Tags'),
    categories: element('Categories'),
    license: element('License'),
    icon: element('Icon'),
    properties,
    assets,
  };
}

/** Width and height of a PNG, or undefined when the bytes are not a PNG. */
export function pngSize(bytes) {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The activation events VS Code generates from `contributes` [vscode]. */
export function impliedActivationEvents(manifest) {
  const contributes = manifest.contributes ?? {};
  return [
    ...(contributes.commands ?? []).map((c) => `onCommand:${c.command}`),
    ...(contributes.languages ?? []).filter((l) => l.id && l.configuration).map((l) => `onLanguage:${l.id}`),
  ];
}

// Character.getType in CONTROL, FORMAT, UNASSIGNED, PRIVATE_USE, LINE_SEPARATOR, PARAGRAPH_SEPARATOR.
const BAD_CHARACTER = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Zl}\p{Zp}]/u;

function isUrl(value) {
  try {
    const url = new URL(value.startsWith('git+') ? value.slice(4) : value);
    return !/^https?:$/.test(url.protocol) || url.host !== '';
  } catch {
    return false;
  }
}

/** The lowest VS Code an `engines.vscode` range admits (`^1.91.0` → 1.91), or undefined. */
export function minimumEngine(range) {
  const match = /^\s*(?:\^|~|>=)?\s*(\d+)\.(\d+)\.(\d+|x)/.exec(range ?? '');
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

/** Links and images of a Markdown file: `[text](target)`, `![alt](src)`, `<img src>`, `<a href>`. */
export function markdownLinks(markdown) {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const links = [];
  for (const m of withoutCode.matchAll(/(!?)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    links.push({ image: m[1] === '!', target: m[2] });
  for (const m of withoutCode.matchAll(/<img\b[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi))
    links.push({ image: true, target: m[1] });
  for (const m of withoutCode.matchAll(/<a\b[^>]*\bhref\s*=\s*["']([^"']+)["']/gi))
    links.push({ image: false, target: m[1] });
  for (const m of withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm))
    links.push({ image: false, target: m[1] });
  return links;
}

/** Every rule the file breaks, each as `[source] what is wrong`; none for a publishable .vsix. */
export function vsixProblems(vsix) {
  const problems = [];
  const problem = (source, text) => problems.push(`[${source}] ${text}`);
  const file = (name) => vsix.files.get(name);

  // The archive.
  if (vsix.size > OPENVSX.maxContentBytes) problem('openvsx', `the file is over 512 MB (${vsix.size} bytes)`);
  if (vsix.size > BUDGET.vsixBytes)
    problem('ours', `the .vsix is ${vsix.size} bytes, over the budget of ${BUDGET.vsixBytes}`);
  if (vsix.entries.length > OPENVSX.maxEntries)
    problem('openvsx', `${vsix.entries.length} entries, over 50,000`);
  const uncompressed = vsix.entries.reduce((sum, e) => sum + e.size, 0);
  if (uncompressed > OPENVSX.maxUncompressedBytes)
    problem('openvsx', `${uncompressed} bytes uncompressed, over 512 MB`);
  for (const entry of vsix.entries) {
    if (entry.extraFieldBytes > 0)
      problem('openvsx', `${entry.name} has a zip extra field (rejected as potentially malicious)`);
    if (entry.size > OPENVSX.maxEntryBytes) problem('openvsx', `${entry.name} is over 32 MB`);
    if (entry.size > BUDGET.fileBytes)
      problem('ours', `${entry.name} is ${entry.size} bytes, over the budget of ${BUDGET.fileBytes}`);
  }

  // What ships.
  for (const name of vsix.files.keys()) {
    const path = name.replace(/^extension\//, '');
    const junk = /\.map$/i.test(path)
      ? 'a source map'
      : /(^|\/)node_modules\//.test(path)
        ? 'node_modules'
        : /(^|\/)(test|tests|__tests__|fixtures)\//.test(path) || /\.(test|spec)\.[cm]?[jt]s$/.test(path)
          ? 'a test'
          : /(^|\/)src\//.test(path) || /\.(ts|mts|cts|tsx)$/.test(path)
            ? 'a source file'
            : /(^|\/)\.[^/]/.test(path)
              ? 'a dotfile'
              : /\.(vsix|tsbuildinfo|log)$/i.test(path)
                ? 'a build leftover'
                : undefined;
    if (junk) problem('ours', `${name} is ${junk}; it must not ship`);
    if (/\.js$/.test(path) && /\/[/*][#@] sourceMappingURL=/.test(file(name).toString('utf8')))
      problem('ours', `${name} points at a source map`);
  }

  // The manifests.
  const packageBytes = file('extension/package.json');
  const vsixManifestBytes = file('extension.vsixmanifest');
  if (!packageBytes) problem('openvsx', 'Entry not found: extension/package.json');
  if (!vsixManifestBytes) problem('openvsx', 'Entry not found: extension.vsixmanifest');
  if (!packageBytes || !vsixManifestBytes) return problems;
  let manifest;
  try {
    manifest = JSON.parse(packageBytes.toString('utf8'));
  } catch (error) {
    problem('openvsx', `Invalid JSON format in extension/package.json: ${error.message}`);
    return problems;
  }
  const meta = parseVsixManifest(vsixManifestBytes.toString('utf8'));

  for (const field of ['publisher', 'name', 'version'])
    if (!manifest[field]) problem('ovsx', `Missing required field '${field}'.`);
  const { Publisher: namespace = '', Id: name = '', Version: version = '', TargetPlatform } = meta.identity;
  if (!OPENVSX_NAME.test(namespace) || namespace === '-' || namespace.length > OPENVSX.stringSize)
    problem('openvsx', `Invalid namespace name: ${namespace}`);
  if (!OPENVSX_NAME.test(name) || name.length > OPENVSX.stringSize)
    problem('openvsx', `Invalid extension name: ${name}`);
  if (!VSCE_NAME.test(namespace)) problem('vsce', `Invalid extension "publisher": "${namespace}"`);
  if (!VSCE_NAME.test(name)) problem('vsce', `Invalid extension "name": "${name}"`);
  if (namespace !== manifest.publisher || name !== manifest.name || version !== manifest.version)
    problem('openvsx', 'extension.vsixmanifest names another publisher, name or version than package.json');
  if (!SEMVER.test(version) || ['latest', 'pre-release', 'reviews'].includes(version))
    problem('openvsx', `Invalid version: ${version}`);
  if (TargetPlatform !== undefined)
    problem('ours', `a platform-specific package (${TargetPlatform}); this one is universal`);

  // Metadata [openvsx ExtensionValidator.validateMetadata].
  const text = (field, value, limit = OPENVSX.stringSize) => {
    if (value === undefined || value === null) return;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== 'string') problem('openvsx', `'${field}' is not a string`);
      else if (BAD_CHARACTER.test(v)) problem('openvsx', `Invalid character found in field '${field}': ${v}`);
      else if (v.length > limit)
        problem('openvsx', `The field '${field}' exceeds the current limit of ${limit} characters.`);
    }
  };
  text('displayName', meta.displayName);
  text('description', meta.description, OPENVSX.descriptionSize);
  text('categories', meta.categories ? meta.categories.split(',') : []);
  text('keywords', meta.tags ? meta.tags.split(',') : []);
  text('license', manifest.license);
  text('galleryBanner.color', manifest.galleryBanner?.color, OPENVSX.galleryColorSize);
  const links = {
    homepage: meta.properties['Microsoft.VisualStudio.Services.Links.Learn'],
    repository: meta.properties['Microsoft.VisualStudio.Services.Links.Source'],
    bugs: meta.properties['Microsoft.VisualStudio.Services.Links.Support'],
  };
  for (const [field, url] of Object.entries(links)) {
    if (url && !isUrl(url)) problem('openvsx', `Invalid URL in field '${field}': ${url}`);
    text(field, url);
  }
  if (manifest.markdown !== undefined && !['github', 'standard'].includes(manifest.markdown))
    problem('openvsx', `Invalid value in field 'markdown': ${manifest.markdown}`);
  const theme = manifest.galleryBanner?.theme;
  if (theme !== undefined && !['dark', 'light'].includes(theme))
    problem('openvsx', `Invalid value in field 'galleryBanner.theme': ${theme}`);
  if (
    manifest.qna !== undefined &&
    manifest.qna !== false &&
    manifest.qna !== 'marketplace' &&
    !isUrl(String(manifest.qna))
  )
    problem('openvsx', `Invalid value in field 'qna': ${manifest.qna}`);

  // What a marketplace page is made of.
  if (!manifest.displayName) problem('ours', 'no displayName: the marketplaces would show the bare name');
  if (!manifest.description) problem('ours', 'no description');
  if (!(manifest.categories ?? []).length) problem('ours', 'no categories');
  if (!(manifest.keywords ?? []).length) problem('ours', 'no keywords');
  if (!links.repository)
    problem('vsce', "A 'repository' field is missing from the 'package.json' manifest file.");

  // License [openvsx PublishExtensionVersionHandler.checkLicense, ovsx check-license]: we want both.
  if (!manifest.license)
    problem(
      'openvsx',
      'This extension cannot be accepted because it has no license. (no `license` in package.json)',
    );
  const licensePath = meta.license ?? meta.assets['Microsoft.VisualStudio.Services.Content.License'];
  if (!licensePath) problem('openvsx', 'no LICENSE file in the package');
  else if (!file(licensePath)) problem('openvsx', `Entry not found: ${licensePath}`);

  // The assets the registries read must be there [openvsx ExtensionProcessor.readFromVsixPackage, getIcon].
  const asset = (type, what) => {
    const path = meta.assets[type];
    if (!path) problem('ours', `no ${what} in the package`);
    else if (!file(path)) problem('openvsx', `Entry not found: ${path}`);
    return path ? file(path) : undefined;
  };
  const readme = asset('Microsoft.VisualStudio.Services.Content.Details', 'README');
  asset('Microsoft.VisualStudio.Services.Content.Changelog', 'CHANGELOG');
  const iconPath = meta.icon ?? meta.assets['Microsoft.VisualStudio.Services.Icons.Default'];
  if (!manifest.icon || !iconPath) problem('ours', 'no icon');
  else if (/\.svg$/i.test(manifest.icon)) problem('vsce', `SVGs can't be used as icons: ${manifest.icon}`);
  else if (!file(iconPath)) problem('openvsx', `Icon Entry not found: ${iconPath}`);
  else {
    const size = pngSize(file(iconPath));
    if (!size) problem('market', `the icon ${iconPath} is not a PNG`);
    else if (size.width < 128 || size.height < 128 || size.width !== size.height)
      problem('market', `the icon is ${size.width}×${size.height}; it must be square and at least 128×128`);
  }

  // The README stands alone on a marketplace page [vsce ReadmeProcessor].
  if (readme) {
    for (const { image, target } of markdownLinks(readme.toString('utf8'))) {
      if (target.startsWith('#')) continue;
      let url;
      try {
        url = new URL(target);
      } catch {
        problem('ours', `the README links to ${target}, a relative path: it is broken on a marketplace page`);
        continue;
      }
      if (image && url.protocol !== 'https:')
        problem('vsce', `Images in README.md must come from an HTTPS source: ${target}`);
      if (image && /\.svg$/i.test(url.pathname))
        problem('vsce', `SVGs are restricted in README.md: ${target}`);
      if (!image && !['https:', 'http:', 'mailto:'].includes(url.protocol))
        problem('ours', `the README links to ${target}`);
    }
    if (/<svg[\s>]/i.test(readme.toString('utf8').replace(/```[\s\S]*?```/g, '')))
      problem('vsce', 'SVG tags are not allowed in README.md.');
  }

  // The entry points and contributed files exist.
  const referenced = [
    manifest.main,
    ...(manifest.contributes?.grammars ?? []).map((g) => g.path),
    ...(manifest.contributes?.languages ?? []).map((l) => l.configuration),
  ].filter(Boolean);
  for (const path of referenced) {
    const inZip = `extension/${path.replace(/^\.\//, '')}`;
    if (!file(inZip) && !file(`${inZip}.js`))
      problem('ours', `package.json names ${path}, which is not in the package`);
  }

  // Engines and activation [vsce validateManifestForPackaging, vscode].
  const engine = minimumEngine(manifest.engines?.vscode);
  if (!engine)
    problem('vsce', `engines.vscode is missing or not a version range: ${manifest.engines?.vscode}`);
  const activation = manifest.activationEvents ?? [];
  if (activation.includes('*'))
    problem('vsce', "Using '*' activation is usually a bad idea as it impacts performance.");
  const implied = impliedActivationEvents(manifest);
  if (engine && (engine.major > 1 || engine.minor >= 74)) {
    for (const event of activation)
      if (implied.includes(event))
        problem('vscode', `activation event ${event} is generated from contributes; remove it`);
  } else if (engine) {
    for (const event of implied)
      if (!activation.includes(event))
        problem(
          'vscode',
          `VS Code ${engine.major}.${engine.minor} generates no ${event}; declare it or require 1.74`,
        );
  }

  return problems;
}
