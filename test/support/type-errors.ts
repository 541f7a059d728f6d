/**
 * The type errors of a few small modules, checked by the TypeScript compiler on the workspace's
 * sources: how a copy of a contract (the extension's copy of the language server's requests, the
 * panel's copy of serve's API types) is held to the original without importing it.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './packages.js';

/**
 * The errors of each module in `modules`, placed in `folder` (relative to the repository) as
 * `__NAME__.ts`; only their own errors (the sources they import are not re-checked), from one program.
 */
export function typeErrors(folder: string, modules: Record<string, string>): Record<string, string[]> {
  const files = new Map(
    Object.entries(modules).map(([name, code]) => [join(ROOT, folder, `__${name}__.ts`), code]),
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
    baseUrl: ROOT,
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
