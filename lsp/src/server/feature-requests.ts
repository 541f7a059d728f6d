/**
 * The editor features' requests, each routed to the language service: the params are already checked
 * (protocol/params.ts), the service answers in LSP's types, and a refusal (a rename to a taken name)
 * becomes an error reply.
 */
import { LSPErrorCodes, RequestType, ResponseError } from 'vscode-languageserver/node';
import type { CancellationToken, Connection, Range, TextEdit } from 'vscode-languageserver/node';
import { isRefusal } from '../service/language-service.js';
import type { GraphAnswer } from '@kairoku-playbook/protocol';
import type { PlaybookLanguageService, Refusal } from '../service/language-service.js';
import { GRAPH_REQUEST, PLAYBOOK_FILES_REQUEST } from './custom-requests.js';
import { prettierOptionsFor } from './prettier-config.js';
import type { GraphParams, PlaybookFilesParams } from './custom-requests.js';

/**
 * Answers a request about one document: cancelled → an error reply; a throw → `empty` and a log line
 * (the server goes on).
 */
export type Answer = <T>(
  name: string,
  uri: string,
  token: CancellationToken,
  empty: T,
  run: () => T | ResponseError<void>,
) => T | ResponseError<void>;

const graphRequest = new RequestType<GraphParams, GraphAnswer, void>(GRAPH_REQUEST);
const playbookFilesRequest = new RequestType<PlaybookFilesParams, string[], void>(PLAYBOOK_FILES_REQUEST);

function refusedOr<T>(result: T | Refusal): T | ResponseError<void> {
  return isRefusal(result) ? new ResponseError(LSPErrorCodes.RequestFailed, result.refused) : result;
}

export function routeFeatureRequests(
  connection: Connection,
  service: PlaybookLanguageService,
  answer: Answer,
  options: { hierarchicalSymbols: () => boolean; fail: (what: string, error: unknown) => void },
): void {
  const format = formatter(service, options.fail);
  connection.onDocumentFormatting(({ textDocument: { uri } }, token) => format(uri, token));
  connection.onDocumentRangeFormatting(({ textDocument: { uri }, range }, token) =>
    format(uri, token, range),
  );
  connection.onCompletion(({ textDocument: { uri }, position }, token) =>
    answer('completion', uri, token, null, () => service.completion(uri, position)),
  );
  connection.onHover(({ textDocument: { uri }, position }, token) =>
    answer('hover', uri, token, null, () => service.hover(uri, position)),
  );
  connection.onDefinition(({ textDocument: { uri }, position }, token) =>
    answer('definition', uri, token, null, () => service.definition(uri, position)),
  );
  connection.onReferences(({ textDocument: { uri }, position, context }, token) =>
    answer('references', uri, token, [], () => service.references(uri, position, context.includeDeclaration)),
  );
  connection.onDocumentHighlight(({ textDocument: { uri }, position }, token) =>
    answer('highlights', uri, token, [], () => service.documentHighlights(uri, position)),
  );
  connection.onPrepareRename(({ textDocument: { uri }, position }, token) =>
    answer('prepare rename', uri, token, null, () => refusedOr(service.prepareRename(uri, position))),
  );
  connection.onRenameRequest(({ textDocument: { uri }, position, newName }, token) =>
    answer('rename', uri, token, null, () => refusedOr(service.rename(uri, position, newName))),
  );
  connection.onDocumentSymbol(({ textDocument: { uri } }, token) =>
    answer('document symbols', uri, token, [], () =>
      service.documentSymbols(uri, options.hierarchicalSymbols()),
    ),
  );
  connection.languages.semanticTokens.on(({ textDocument: { uri } }, token) =>
    answer('semantic tokens', uri, token, { data: [] }, () => service.semanticTokens(uri)),
  );
  connection.onFoldingRanges(({ textDocument: { uri } }, token) =>
    answer('folding ranges', uri, token, [], () => service.foldingRanges(uri)),
  );
  connection.onCodeAction(({ textDocument: { uri }, range, context }, token) =>
    answer('code actions', uri, token, [], () => service.codeActions(uri, range, context)),
  );
  connection.onRequest(graphRequest, ({ textDocument: { uri } }, token) =>
    answer<GraphAnswer>(
      'graph',
      uri,
      token,
      { kind: 'none', message: 'The graph could not be made: the language server logged why.' },
      () => service.graph(uri),
    ),
  );
  connection.onRequest(playbookFilesRequest, ({ uris }, token) =>
    answer('playbook files', `${uris.length} URIs`, token, [], () => service.playbookFiles(uris)),
  );
}

/**
 * Formatting waits for Prettier (and reads the project's Prettier config): an edit of the document in
 * the meantime makes the answer stale, which is said (ContentModified) rather than applied.
 */
function formatter(service: PlaybookLanguageService, fail: (what: string, error: unknown) => void) {
  return async (
    uri: string,
    token: CancellationToken,
    range?: Range,
  ): Promise<TextEdit[] | ResponseError<void>> => {
    if (token.isCancellationRequested)
      return new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
    try {
      const version = service.versionOf(uri);
      const config = await prettierOptionsFor(uri);
      if ('refused' in config) return new ResponseError(LSPErrorCodes.RequestFailed, config.refused);
      // (listed in .prettierignore: no edits, as Prettier's own extension does)
      if ('ignored' in config) return [];
      const edits = await service.formatting(uri, config.options, range);
      if (token.isCancellationRequested)
        return new ResponseError(LSPErrorCodes.RequestCancelled, 'request cancelled');
      if (service.versionOf(uri) !== version)
        return new ResponseError(
          LSPErrorCodes.ContentModified,
          'the document changed while it was formatted',
        );
      return refusedOr(edits);
    } catch (error) {
      // An error reply, never an empty answer: the editor then says the format failed instead of nothing.
      fail(`formatting ${uri}`, error);
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!.trim();
      return new ResponseError(
        LSPErrorCodes.RequestFailed,
        `not formatted: the formatter failed (${message}); the language server's log has the details`,
      );
    }
  };
}
