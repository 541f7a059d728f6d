/** The page's entry: draws the panel, loads what the server has, and listens for changes. */
import { render } from 'preact';
import { App } from './app.js';
import { hostCommand } from './host-commands.js';
import { openWaitingFirst, startRouter } from './router.js';
import { effect } from '@preact/signals';
import { connectEvents, loadPlaybooks, loadRuns, waitingCount } from './store.js';
import { startClock } from './time.js';
import { useTransport } from './transport.js';
import { webviewTransport } from './webview-transport.js';
import type { VsCodeApi } from './webview-transport.js';

// In VS Code's Playbooks view the API goes through the extension host (webview-transport.ts).
declare const acquireVsCodeApi: (() => VsCodeApi) | undefined;
if (typeof acquireVsCodeApi === 'function') {
  document.documentElement.classList.add('in-vscode');
  useTransport(webviewTransport(acquireVsCodeApi(), hostCommand));
}

render(<App />, document.getElementById('app')!);
void loadPlaybooks(); // (it catches its own failure and shows it in the status line)
// (it catches its own failure and shows it in the status line)
void loadRuns().then(openWaitingFirst);
connectEvents();
startClock(); // elapsed times tick while something runs
startRouter(); // the address names the open run (and step): a reload or a link opens it

// The tab's title counts the decisions waiting, as a mail client counts unread mail: "(1) Playbooks".
effect(() => {
  const waiting = waitingCount.value;
  document.title = waiting > 0 ? `(${waiting}) Playbooks` : 'Playbooks';
});
