/** The language server over stdio: `node lsp/dist/stdio.js` (the bundled server of the VS Code extension). */
import { serveStdio } from './server/server.js';

serveStdio();
