/**
 * The extension's copy of the server's requests (src/graph-protocol.ts; it imports nothing of the
 * playbook packages) is the server's: the same method names, and answer types each assignable to the
 * other, checked by the TypeScript compiler on the two sources.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { GRAPH_REQUEST, LISTED_PROBLEMS, PLAYBOOK_FILES_REQUEST } from '@kairoku-playbook/lsp';
import * as extension from '../src/graph-protocol.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The type errors of each module in `modules` (placed in vscode-extension/test; only their own errors:
 * the sources they import are not re-checked), from one program.
 */
function typeErrors(modules: Record<string, string>): Record<string, string[]> {
  const files = new Map(
    Object.entries(modules).map(([name, code]) => [
      join(root, 'vscode-extension', 'test', `__${name}__.ts`),
      code,
    ]),
  );
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    resolveJsonModule: true,
    types: ['node'],
    baseUrl: root,
    // The workspace packages as their sources, so nothing has to be built first.
    paths: {
      '@kairoku-playbook/compiler': ['compiler/src/index.ts'],
      '@kairoku-playbook/grammar': ['grammar/src/index.ts'],
    },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (path) => files.get(path) ?? readFile(path);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (path) => files.has(path) || fileExists(path);
  const program = ts.createProgram([...files.keys()], options, host);
  const names = Object.keys(modules);
  return Object.fromEntries(
    [...files.keys()].map((path, i) => {
      const source = program.getSourceFile(path)!;
      const diagnostics = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      return [names[i]!, diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))];
    }),
  );
}

const IMPORTS = `
  import type { GraphAnswer as Server } from '../../lsp/src/service/features/graph.js';
  import type { GraphAnswer as Extension } from '../src/graph-protocol.js';
`;

describe("the extension's copy of the server's requests", () => {
  it('has their method names', () => {
    expect(extension.GRAPH_REQUEST).toBe(GRAPH_REQUEST);
    expect(extension.PLAYBOOK_FILES_REQUEST).toBe(PLAYBOOK_FILES_REQUEST);
    expect(LISTED_PROBLEMS).toBeGreaterThan(0);
  });

  it("has the graph answer's type: each assignable to the other", () => {
    const errors = typeErrors({
      agreement: `${IMPORTS}
        export const serverToExtension = (answer: Server): Extension => answer;
        export const extensionToServer = (answer: Extension): Server => answer;`,
      // The check sees a difference: an answer the server never sends.
      difference: `${IMPORTS}
        type More = Extension | { kind: 'graph'; more: true };
        export const extensionToServer = (answer: More): Server => answer;`,
    });
    expect(errors.agreement).toEqual([]);
    expect(errors.difference).not.toEqual([]);
  }, 60_000);
});
