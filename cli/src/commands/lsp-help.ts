// lsp's --help, apart from the command so that `main` answers it without loading the command's module.
export const LSP_HELP = `Usage: kairoku-playbook lsp --stdio

Starts the playbook language server, speaking the Language Server Protocol over stdin and stdout.
Its diagnostics are exactly those of kairoku-playbook check with its explore pass, PB310 and
PB311 included (initializationOptions { "explore": false } leaves those out); it also completes,
hovers, goes to definitions, finds references, renames, outlines, highlights expressions and offers
quick fixes.

Options:
  --stdio     talk over stdin and stdout (the only transport)
  -h, --help  this help`;
