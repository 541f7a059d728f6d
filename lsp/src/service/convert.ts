/**
 * The edge between the offset-based features and LSP's types: offsets become LSP positions here and only
 * here, with the compiler's SourceText (columns in UTF-16 code units, LSP's default encoding). Types and
 * constants only (vscode-languageserver-types): no connection.
 */
import {
  CodeActionKind,
  CompletionItemKind,
  DiagnosticSeverity,
  DiagnosticTag,
  DocumentHighlightKind,
  FoldingRangeKind,
  InsertTextFormat,
  MarkupKind,
  SymbolKind,
} from 'vscode-languageserver-types';
import type {
  CodeAction,
  CompletionItem,
  Diagnostic as LspDiagnostic,
  DocumentHighlight,
  DocumentSymbol,
  FoldingRange,
  Hover,
  Range,
  TextEdit,
} from 'vscode-languageserver-types';
import { codeLink } from '@kairoku-playbook/compiler';
import type { Diagnostic, OffsetRange, SourceText } from '@kairoku-playbook/compiler';
import type { CodeActionResult } from './features/code-actions.js';
import type { CompletionEntry, CompletionKind } from './features/completion.js';
import type { Highlight } from './features/document-highlights.js';
import type { OutlineKind, OutlineSymbol } from './features/document-symbols.js';
import type { FoldingRangeResult } from './features/folding-ranges.js';
import type { HoverResult } from './features/hover.js';
import type { SemanticToken } from './features/semantic-tokens.js';
import { TOKEN_MODIFIERS, TOKEN_TYPES } from './features/semantic-tokens.js';
import type { OffsetEdit } from './language/types.js';

export const DIAGNOSTIC_SOURCE = 'kairoku-playbook';

export function toRange(source: SourceText, range: OffsetRange): Range {
  return { start: source.positionAt(range.start), end: source.positionAt(range.end) };
}

export function toTextEdit(source: SourceText, edit: OffsetEdit): TextEdit {
  return { range: toRange(source, edit.range), newText: edit.newText };
}

const SEVERITY = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
} as const;

/** Codes whose diagnostics mark something that can go (shown faded by editors). */
const UNNECESSARY = new Set(['PB900', 'PB901', 'PB902', 'PB903']);

/**
 * A compiler diagnostic as an LSP one, field for field: the same code, message, severity and range (and the
 * related locations as relatedInformation), plus where the code is documented.
 */
export function toLspDiagnostic(
  diagnostic: Diagnostic,
  sourceOf: (file: string) => SourceText | undefined,
  uriOf: (file: string) => string | undefined,
): LspDiagnostic {
  const source = sourceOf(diagnostic.file);
  const range = source
    ? toRange(source, diagnostic.range)
    : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const result: LspDiagnostic = {
    range,
    severity: SEVERITY[diagnostic.severity],
    code: diagnostic.code,
    codeDescription: { href: codeLink(diagnostic.code) },
    source: DIAGNOSTIC_SOURCE,
    message: diagnostic.message,
  };
  if (UNNECESSARY.has(diagnostic.code)) result.tags = [DiagnosticTag.Unnecessary];
  if (diagnostic.related?.length) {
    result.relatedInformation = diagnostic.related.map((related) => {
      const relatedSource = sourceOf(related.file);
      return {
        location: {
          uri: uriOf(related.file) ?? related.file,
          range: relatedSource
            ? toRange(relatedSource, related.range)
            : { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
        },
        message: related.message,
      };
    });
  }
  return result;
}

/** A diagnostic for a file the checker itself failed on: no code, since it is not the playbook's fault. */
export function crashDiagnostic(message: string): LspDiagnostic {
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Error,
    source: DIAGNOSTIC_SOURCE,
    message: `internal error: the checker failed on this file (${message}); please report it`,
  };
}

const COMPLETION_KINDS: Record<CompletionKind, CompletionItemKind> = {
  key: CompletionItemKind.Property,
  value: CompletionItemKind.Value,
  step: CompletionItemKind.Function,
  input: CompletionItemKind.Variable,
  role: CompletionItemKind.Class,
  output: CompletionItemKind.Field,
  outcome: CompletionItemKind.EnumMember,
  root: CompletionItemKind.Module,
  field: CompletionItemKind.Field,
  function: CompletionItemKind.Function,
  keyword: CompletionItemKind.Keyword,
  type: CompletionItemKind.TypeParameter,
};

export function toCompletionItem(source: SourceText, entry: CompletionEntry): CompletionItem {
  const item: CompletionItem = {
    label: entry.label,
    kind: COMPLETION_KINDS[entry.kind],
    textEdit: { range: toRange(source, entry.range), newText: entry.insertText },
    insertTextFormat: InsertTextFormat.PlainText,
  };
  if (entry.detail) item.detail = entry.detail;
  if (entry.documentation) item.documentation = { kind: MarkupKind.Markdown, value: entry.documentation };
  if (entry.sortText) item.sortText = entry.sortText;
  return item;
}

export function toHover(source: SourceText, hover: HoverResult): Hover {
  return {
    contents: { kind: MarkupKind.Markdown, value: hover.contents },
    range: toRange(source, hover.range),
  };
}

export function toHighlight(source: SourceText, highlight: Highlight): DocumentHighlight {
  return {
    range: toRange(source, highlight.range),
    kind: highlight.kind === 'write' ? DocumentHighlightKind.Write : DocumentHighlightKind.Read,
  };
}

const SYMBOL_KINDS: Record<OutlineKind, SymbolKind> = {
  section: SymbolKind.Namespace,
  input: SymbolKind.Variable,
  role: SymbolKind.Class,
  step: SymbolKind.Function,
  'after-task': SymbolKind.Event,
  output: SymbolKind.Field,
  outcome: SymbolKind.EnumMember,
};

export function toDocumentSymbol(source: SourceText, symbol: OutlineSymbol): DocumentSymbol {
  const result: DocumentSymbol = {
    name: symbol.name || ' ',
    kind: SYMBOL_KINDS[symbol.kind],
    range: toRange(source, symbol.range),
    selectionRange: toRange(source, symbol.selectionRange),
    children: symbol.children.map((child) => toDocumentSymbol(source, child)),
  };
  if (symbol.detail) result.detail = symbol.detail;
  return result;
}

export function toFoldingRange(source: SourceText, range: FoldingRangeResult): FoldingRange {
  const result: FoldingRange = {
    startLine: source.positionAt(range.start).line,
    endLine: source.positionAt(range.end).line,
  };
  if (range.kind === 'comment') result.kind = FoldingRangeKind.Comment;
  return result;
}

export function toCodeAction(
  source: SourceText,
  uri: string,
  action: CodeActionResult,
  diagnostic: LspDiagnostic,
): CodeAction {
  return {
    title: action.title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: action.isPreferred,
    edit: { changes: { [uri]: action.edits.map((edit) => toTextEdit(source, edit)) } },
  };
}

export const SEMANTIC_TOKENS_LEGEND = { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [...TOKEN_MODIFIERS] };

/**
 * The LSP encoding of semantic tokens: five integers per token, lines and starts relative to the previous
 * token. A token that crosses a line break (a string literal in a folded scalar) is split per line.
 */
export function encodeSemanticTokens(source: SourceText, tokens: readonly SemanticToken[]): number[] {
  const data: number[] = [];
  let previousLine = 0;
  let previousStart = 0;
  const push = (line: number, start: number, length: number, type: number, modifiers: number) => {
    if (length <= 0) return;
    data.push(
      line - previousLine,
      line === previousLine ? start - previousStart : start,
      length,
      type,
      modifiers,
    );
    previousLine = line;
    previousStart = start;
  };
  for (const token of tokens) {
    const type = TOKEN_TYPES.indexOf(token.type);
    const modifiers = token.modifiers.reduce((bits, m) => bits | (1 << TOKEN_MODIFIERS.indexOf(m)), 0);
    const from = source.positionAt(token.range.start);
    const to = source.positionAt(token.range.end);
    if (from.line === to.line) {
      push(from.line, from.character, to.character - from.character, type, modifiers);
      continue;
    }
    for (let line = from.line; line <= to.line; line++) {
      // Continuation lines start after their indentation, which is not part of the token's value.
      const start = line === from.line ? from.character : /^\s*/.exec(source.lineText(line))![0].length;
      const end = line === to.line ? to.character : source.lineText(line).length;
      push(line, start, end - start, type, modifiers);
    }
  }
  return data;
}
