/**
 * The extension's copy of the server's requests (src/graph-protocol.ts; it imports nothing of the
 * playbook packages) is the server's: the same method names, and answer types each assignable to the
 * other, checked by the TypeScript compiler on the two sources.
 */
import { describe, expect, it } from 'vitest';
import { GRAPH_REQUEST, LISTED_PROBLEMS, PLAYBOOK_FILES_REQUEST } from '@kairoku-playbook/lsp';
import * as extension from '../src/graph-protocol.js';
import { typeErrors } from '../../test/support/type-errors.js';

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
    const errors = typeErrors('vscode-extension/test', {
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
