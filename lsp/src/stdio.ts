/**
 * The language server over stdio: `node lsp/dist/stdio.js` (what `kairoku-playbook lsp --stdio` runs).
 * Nothing may write to stdout but the protocol; a stray error is logged to stderr, never fatal.
 */
import { startServer } from './server.js';

process.on('uncaughtException', (error) =>
  process.stderr.write(`kairoku-playbook lsp: ${error.stack ?? error}\n`),
);
process.on('unhandledRejection', (error) => process.stderr.write(`kairoku-playbook lsp: ${String(error)}\n`));
startServer(process.stdin, process.stdout);
