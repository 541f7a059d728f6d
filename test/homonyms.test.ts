/**
 * One name, one thing: no two source files of the packages export different things under the same name
 * (two `writeFileAtomic`, two `displayPath` with different behaviour, a `sortDiagnostics` that is another
 * function under the compiler's name). Passing a thing on (`export { x } from …`) is not a second thing;
 * passing it on under another name is, when that name is taken.
 *
 * Counted: exported functions, classes, variables and enums (values, which a reader calls and can
 * confuse), and `export { a as b }`. Types are left out: a `Props` per module is normal.
 *
 * One exception, where the layering forbids sharing: the two ends of a wire protocol, or a helper both
 * sides need, in packages that may not import each other (test/support/packages.ts: the extension and
 * the language server, the language server and the runtime). A copy there is one thing written twice,
 * not two things under one name, if it is the same text: a function, or a constant whose value is a
 * string (a request's method name). The test holds the copies to that: the day one changes alone, it
 * fails. A number is left out, since two protocols' `1` are not one thing.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, mayImport, packages, packagesWithoutRule } from './support/packages.js';

function sources(): string[] {
  return packages()
    .flatMap((folder) =>
      (existsSync(join(ROOT, folder, 'src'))
        ? readdirSync(join(ROOT, folder, 'src'), { recursive: true, encoding: 'utf8' })
        : []
      )
        .filter((name) => /\.tsx?$/.test(name) && !/\.d\.ts$/.test(name))
        // generated validators: ajv names each one `validate`, and nothing imports them by that name
        .filter((name) => !name.split(/[\\/]/).includes('generated'))
        .map((name) =>
          relative(ROOT, join(ROOT, folder, 'src', name))
            .split('\\')
            .join('/'),
        ),
    )
    .sort();
}

/**
 * The values a file exports as its own (declared there, or passed on under a new name), each with its
 * declaration's text when it may be a copy (a function, a constant whose value is a string).
 */
function ownExports(file: string, text = readFileSync(join(ROOT, file), 'utf8')): Export[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const names: Export[] = [];
  const copyText = (node: ts.Node) => node.getText(source).replace(/\s+/g, ' ');
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name &&
      exported(statement)
    )
      names.push({
        name: statement.name.text,
        copy: ts.isFunctionDeclaration(statement) ? copyText(statement) : undefined,
      });
    else if (ts.isVariableStatement(statement) && exported(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) {
          const value = declaration.initializer;
          const isString = value && (ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value));
          names.push({ name: declaration.name.text, copy: isString ? copyText(declaration) : undefined });
        }
    } else if (
      ts.isExportDeclaration(statement) &&
      !statement.isTypeOnly &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements)
        if (!element.isTypeOnly && element.propertyName && element.propertyName.text !== element.name.text)
          names.push({ name: element.name.text, copy: undefined });
    }
  }
  return names;
}

interface Export {
  name: string;
  /** the declaration's text, whitespace folded, when a copy of it elsewhere can be the same thing */
  copy: string | undefined;
}

/** Copies of one declaration in packages that may not import each other (see the exception above). */
function isCopyAcrossLayers(found: readonly { file: string; copy: string | undefined }[]): boolean {
  const [first] = found;
  if (first?.copy === undefined || found.some(({ copy }) => copy !== first.copy)) return false;
  const folders = found.map(({ file }) => file.split('/')[0]!);
  return folders.every((a, i) => folders.every((b, j) => i === j || (!mayImport(a, b) && !mayImport(b, a))));
}

/** Each name exported as their own by more than one file, with the files. */
function homonyms(): string[] {
  const where = new Map<string, { file: string; copy: string | undefined }[]>();
  for (const file of sources())
    for (const { name, copy } of ownExports(file))
      where.set(name, [...(where.get(name) ?? []), { file, copy }]);
  return [...where]
    .filter(([, found]) => found.length > 1 && !isCopyAcrossLayers(found))
    .map(([name, found]) => `${name}: ${found.map(({ file }) => file).join(', ')}`)
    .sort();
}

describe('homonyms', () => {
  it('finds what it looks for (a sanity check of the reader)', () => {
    const names = (file: string, text?: string) => ownExports(file, text).map(({ name }) => name);
    expect(names('compiler/src/workspace/discovery.ts')).toContain('displayPath');
    const text = [
      "export { sortDiagnostics as sortForPrinting } from './x.js';",
      "export { passedOn } from './x.js';",
      'export type { Props } from "./x.js";',
      'export const METHOD = "kairoku-playbook/graph";',
      'export function helper(): number { return 1; }',
    ].join('\n');
    expect(names('a.ts', text)).toEqual(['sortForPrinting', 'METHOD', 'helper']);
  });

  it('takes a copy for one thing only where the layering forbids sharing it, and only while it is the same', () => {
    const [method] = ownExports('a.ts', 'export const METHOD = "kairoku-playbook/graph";');
    const [other] = ownExports('b.ts', 'export const METHOD = "kairoku-playbook/files";');
    const [version] = ownExports('c.ts', 'export const VERSION = 1;');
    const copy = (file: string, found: Export | undefined) => ({ file, copy: found!.copy });
    expect(
      isCopyAcrossLayers([copy('lsp/src/a.ts', method), copy('vscode-extension/src/a.ts', method)]),
    ).toBe(true);
    expect(isCopyAcrossLayers([copy('lsp/src/a.ts', method), copy('vscode-extension/src/a.ts', other)])).toBe(
      false,
    );
    // the language server may import the compiler: it must import the compiler's, not copy it
    expect(isCopyAcrossLayers([copy('compiler/src/a.ts', method), copy('lsp/src/a.ts', method)])).toBe(false);
    expect(isCopyAcrossLayers([copy('lsp/src/a.ts', version), copy('runtime/src/a.ts', version)])).toBe(
      false,
    );
  });

  it('reads every workspace package (each has a layering rule)', () => {
    expect(packagesWithoutRule()).toEqual([]);
  });

  it('no two files export different things under one name', () => {
    expect(homonyms()).toEqual([]);
  });
});
